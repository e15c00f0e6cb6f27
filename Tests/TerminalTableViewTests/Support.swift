import Foundation
import SectionedChanges
import TerminalTableView
import Testing

/// A data source over arrays that tests mutate before telling the table about the change.
@MainActor
final class ArrayDataSource: TableViewDataSource {
    struct Section {
        var title: String?
        var rows: [[String]]
    }

    var sections: [Section]
    var indexTitles: [String]?
    var showsCounts = true
    private(set) var cellRequests = 0

    init(_ sections: [Section], indexTitles: [String]? = nil) {
        self.sections = sections
        self.indexTitles = indexTitles
    }

    /// Sections titled by letter, each with `count` rows named `<letter><n>`.
    convenience init(letters: String, rowsPerSection count: Int) {
        self.init(
            letters.map { letter in
                Section(title: String(letter), rows: (0..<count).map { ["\(letter)\($0)"] })
            })
    }

    func numberOfSections(in tableView: TableView) -> Int { sections.count }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        sections[section].rows.count
    }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        cellRequests += 1
        return TableViewCell(columns: sections[indexPath.section].rows[indexPath.row])
    }

    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        sections[section].title
    }

    func tableView(_ tableView: TableView, detailForHeaderInSection section: Int) -> String? {
        showsCounts ? "\(sections[section].rows.count)" : nil
    }

    func sectionIndexTitles(for tableView: TableView) -> [String]? { indexTitles }

    func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        sections.firstIndex { $0.title == title } ?? index
    }

    func name(at indexPath: IndexPath) -> String { sections[indexPath.section].rows[indexPath.row][0] }
}

/// Records what the table tells its delegate.
@MainActor
final class RecordingDelegate: TableViewDelegate {
    var selectionChanges = 0
    var activated: [IndexPath] = []

    func tableViewSelectionDidChange(_ tableView: TableView) { selectionChanges += 1 }

    func tableView(_ tableView: TableView, didActivateRowAt indexPath: IndexPath) { activated.append(indexPath) }
}

@MainActor
func renderLines(_ table: TableView, width: Int, height: Int) -> [String] {
    var buffer = ScreenBuffer(size: TerminalSize(columns: width, rows: height))
    table.render(into: &buffer, in: buffer.bounds)
    return buffer.lines
}

/// The lines framed with a `|` right border at `width` (by display width), one string, so that a
/// failure shows the whole screen and trailing spaces are visible.
func framed(_ lines: [String], width: Int) -> String {
    lines.map { $0 + String(repeating: " ", count: max(0, width - DisplayWidth.of($0))) + "|" }
        .joined(separator: "\n")
}

/// Compares a rendered screen with an expectation written with a `|` right border.
@MainActor
func expectScreen(
    _ table: TableView, width: Int, height: Int, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        framed(renderLines(table, width: width, height: height), width: width) == expected,
        sourceLocation: sourceLocation)
}

extension IndexPath {
    /// `IndexPath(0, 3)` is row 3 of section 0 (section first, as printed).
    init(_ section: Int, _ row: Int) { self.init(row: row, section: section) }
}

import Foundation
import SectionedChanges

/// The table's cached shape: how many rows each section has and which sections show a header,
/// with the line and row offsets derived from them.
///
/// It is read eagerly from the data source in `reloadData()` and after each batch, and it is the
/// "before" state the next batch is checked against (Texture's lesson: a count read lazily at
/// drawing time may already include the very change being reported). Building it is O(sections);
/// every lookup is O(log sections), so nothing is proportional to the number of rows.
///
/// Content is a sequence of *lines*: for each section, its header line (if it has a header) and then
/// one line per row.
struct SectionLayout: Sendable, Equatable {
    /// One line of content.
    enum Line: Equatable {
        case header(section: Int)
        case row(IndexPath)
    }

    private(set) var rowCounts: [Int]
    private(set) var hasHeader: [Bool]
    /// The first line of each section.
    private var lineStarts: [Int]
    /// The index, counted across all sections, of each section's first row.
    private var rowStarts: [Int]
    private(set) var totalLines: Int
    private(set) var totalRows: Int

    init(rowCounts: [Int] = [], hasHeader: [Bool] = []) {
        self.rowCounts = rowCounts
        self.hasHeader = hasHeader
        var lineStarts: [Int] = []
        var rowStarts: [Int] = []
        lineStarts.reserveCapacity(rowCounts.count)
        rowStarts.reserveCapacity(rowCounts.count)
        var line = 0
        var row = 0
        for (section, count) in rowCounts.enumerated() {
            lineStarts.append(line)
            rowStarts.append(row)
            line += count + (section < hasHeader.count && hasHeader[section] ? 1 : 0)
            row += count
        }
        self.lineStarts = lineStarts
        self.rowStarts = rowStarts
        self.totalLines = line
        self.totalRows = row
    }

    var sectionCount: Int { rowCounts.count }

    func sectionHasHeader(_ section: Int) -> Bool {
        section >= 0 && section < hasHeader.count && hasHeader[section]
    }

    func contains(_ indexPath: IndexPath) -> Bool {
        indexPath.count == 2 && indexPath.section >= 0 && indexPath.section < sectionCount
            && indexPath.row >= 0 && indexPath.row < rowCounts[indexPath.section]
    }

    // MARK: Lines

    /// The line of the row at `indexPath` (which must be valid).
    func line(of indexPath: IndexPath) -> Int {
        lineStarts[indexPath.section] + (hasHeader[indexPath.section] ? 1 : 0) + indexPath.row
    }

    /// The line of the header of `section`, or of its first row when it has no header.
    func firstLine(ofSection section: Int) -> Int {
        lineStarts[section]
    }

    /// What is drawn on `line`, or nil beyond the content.
    func content(atLine line: Int) -> Line? {
        guard line >= 0, line < totalLines else { return nil }
        let section = Self.lastIndex(in: lineStarts, notAbove: line)
        let offset = line - lineStarts[section]
        if hasHeader[section] {
            return offset == 0 ? .header(section: section) : .row(IndexPath(row: offset - 1, section: section))
        }
        return .row(IndexPath(row: offset, section: section))
    }

    /// The section whose header or rows are on `line` (nil beyond the content).
    func section(atLine line: Int) -> Int? {
        switch content(atLine: line) {
        case .header(let section): section
        case .row(let indexPath): indexPath.section
        case nil: nil
        }
    }

    // MARK: Rows counted across sections

    /// The position of `indexPath` when rows are counted across all sections.
    func absoluteRow(of indexPath: IndexPath) -> Int {
        rowStarts[indexPath.section] + indexPath.row
    }

    /// The index path of the row at `absoluteRow` counted across all sections (nil outside).
    func indexPath(atAbsoluteRow absoluteRow: Int) -> IndexPath? {
        guard absoluteRow >= 0, absoluteRow < totalRows else { return nil }
        var section = Self.lastIndex(in: rowStarts, notAbove: absoluteRow)
        // Empty sections share their start with the next section: step to the one that has rows.
        while rowCounts[section] == 0, section + 1 < sectionCount { section += 1 }
        return IndexPath(row: absoluteRow - rowStarts[section], section: section)
    }

    /// The row closest to `row` in `section`: that row clamped to the section, or when the section
    /// has no rows, the first row of a later section, else the last row of an earlier one.
    func nearestRow(section: Int, row: Int) -> IndexPath? {
        guard sectionCount > 0, totalRows > 0 else { return nil }
        let start = min(max(section, 0), sectionCount - 1)
        if section >= 0, section < sectionCount, rowCounts[section] > 0 {
            return IndexPath(row: min(max(row, 0), rowCounts[section] - 1), section: section)
        }
        for later in start..<sectionCount where rowCounts[later] > 0 && later >= section {
            return IndexPath(row: 0, section: later)
        }
        for earlier in stride(from: start, through: 0, by: -1) where rowCounts[earlier] > 0 {
            return IndexPath(row: rowCounts[earlier] - 1, section: earlier)
        }
        return nil
    }

    /// The largest index `i` with `starts[i] <= value` (`starts` is sorted, non-empty, starts at 0).
    private static func lastIndex(in starts: [Int], notAbove value: Int) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }
}

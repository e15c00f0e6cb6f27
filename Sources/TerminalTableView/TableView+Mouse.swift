import Foundation
import SectionedChanges

extension TableView {
    /// Rows the wheel moves the selection by.
    static let wheelStep = 3

    /// Handles a mouse event at screen coordinates, using where the last render drew the table: a
    /// click on a row selects it, a click on a section header selects the section's first row, a click
    /// on the section index jumps to the section of the title there (or, on a `•` line, of the title
    /// that line stands for), and the wheel moves the selection by three rows. Returns true when the
    /// event was used, false when it was outside the table or the table has no rows.
    public func handle(_ event: MouseEvent) -> Bool {
        guard layout.totalRows > 0 else { return false }
        switch event.kind {
        case .scrollUp:
            return handle(.up, repeating: Self.wheelStep)
        case .scrollDown:
            return handle(.down, repeating: Self.wheelStep)
        case .press:
            if let index = renderedIndexRect, index.contains(column: event.column, row: event.row) {
                return jumpToIndexTitle(atLine: event.row - index.y, of: index.height)
            }
            if let content = renderedContentRect, content.contains(column: event.column, row: event.row) {
                return selectContent(atScreenLine: event.row - content.y)
            }
            return false
        }
    }

    private func handle(_ key: Key, repeating count: Int) -> Bool {
        var used = false
        for _ in 0..<count { used = handle(key) || used }
        return used
    }

    private func jumpToIndexTitle(atLine line: Int, of height: Int) -> Bool {
        guard let titles = dataSource?.sectionIndexTitles(for: self), !titles.isEmpty else { return false }
        let entries = SectionIndexLayout.entries(titleCount: titles.count, lines: height)
        guard line >= 0, line < entries.count else { return false }
        // A `•` line stands for the titles between its neighbours: take the one in the middle.
        let position =
            entries[line]
            ?? {
                let before = entries[..<line].last { $0 != nil }.flatMap { $0 } ?? 0
                let after = entries[(line + 1)...].first { $0 != nil }.flatMap { $0 } ?? titles.count - 1
                return (before + after) / 2
            }()
        return scrollToSection(forIndexTitle: titles[position])
    }

    private func selectContent(atScreenLine screenLine: Int) -> Bool {
        let offset = pinnedHeaderOffset(forTopLine: topLine)
        let target: IndexPath?
        if offset == 1, screenLine == 0, let section = layout.section(atLine: topLine) {
            target = layout.nearestRow(section: section, row: 0)
        } else {
            switch layout.content(atLine: topLine + screenLine - offset) {
            case .row(let indexPath): target = indexPath
            case .header(let section): target = layout.nearestRow(section: section, row: 0)
            case nil: target = nil
            }
        }
        guard let target, target.section < layout.sectionCount else { return false }
        return selectRow(at: target)
    }
}

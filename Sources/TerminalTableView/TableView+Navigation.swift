import Foundation
import SectionedChanges

extension TableView {
    /// The selected row, if any.
    public var indexPathForSelectedRow: IndexPath? { selection }

    /// Selects the row at `indexPath` (nil clears the selection) and scrolls it into view at
    /// `position`. Returns false, changing nothing, when the index path is not in the table.
    @discardableResult
    public func selectRow(at indexPath: IndexPath?, scrollPosition: ScrollPosition = .nearest) -> Bool {
        guard let indexPath else {
            setSelection(nil)
            return true
        }
        guard layout.contains(indexPath) else { return false }
        setSelection(indexPath)
        scroll(toLine: layout.line(of: indexPath), position: scrollPosition)
        needsSelectionVisible = viewportHeight == 0
        return true
    }

    /// Jumps to the section the data source names for the index title `title`: its header goes to the
    /// top and its first row is selected. The title is looked up exactly, then without regard to case,
    /// then as the start of a longer title (so `"3"` finds `"30"` in an index of decades). Returns
    /// false when no index title matches.
    @discardableResult
    public func scrollToSection(forIndexTitle title: String) -> Bool {
        guard !title.isEmpty, let dataSource, let titles = dataSource.sectionIndexTitles(for: self) else {
            return false
        }
        let folded = title.lowercased()
        let position =
            titles.firstIndex(of: title) ?? titles.firstIndex { $0.lowercased() == folded }
            ?? titles.firstIndex { $0.lowercased().hasPrefix(folded) }
        guard let position else { return false }
        let section = dataSource.tableView(self, sectionForSectionIndexTitle: titles[position], at: position)
        guard section >= 0, section < layout.sectionCount else { return false }
        if let first = layout.nearestRow(section: section, row: 0), first.section == section {
            setSelection(first)
        }
        scroll(toLine: layout.firstLine(ofSection: section), position: .top)
        needsSelectionVisible = false
        return true
    }

    /// Handles a navigation key: up and down move the selection one row, page up and page down by a
    /// screenful (the selection keeps its screen line), home and end go to the first and last row,
    /// and Enter tells the delegate the selected row was activated. Returns true when the key was
    /// used, false for other keys and when the table has no rows.
    public func handle(_ key: Key) -> Bool {
        guard layout.totalRows > 0 else { return false }
        let page = max(1, (viewportHeight > 0 ? viewportHeight : 10) - 1)
        switch key {
        case .up: moveSelection(by: -1, keepingScreenLine: false)
        case .down: moveSelection(by: 1, keepingScreenLine: false)
        case .pageUp: moveSelection(by: -page, keepingScreenLine: true)
        case .pageDown: moveSelection(by: page, keepingScreenLine: true)
        case .home: moveSelection(toAbsoluteRow: 0, keepingScreenLine: false)
        case .end: moveSelection(toAbsoluteRow: layout.totalRows - 1, keepingScreenLine: false)
        case .enter:
            guard let selection else { return false }
            delegate?.tableView(self, didActivateRowAt: selection)
        default:
            return false
        }
        return true
    }

    private func moveSelection(by offset: Int, keepingScreenLine: Bool) {
        guard let selection, layout.contains(selection) else {
            moveSelection(toAbsoluteRow: offset < 0 ? layout.totalRows - 1 : 0, keepingScreenLine: false)
            return
        }
        moveSelection(toAbsoluteRow: layout.absoluteRow(of: selection) + offset, keepingScreenLine: keepingScreenLine)
    }

    private func moveSelection(toAbsoluteRow absoluteRow: Int, keepingScreenLine: Bool) {
        let clamped = min(max(0, absoluteRow), layout.totalRows - 1)
        guard let target = layout.indexPath(atAbsoluteRow: clamped) else { return }
        let oldScreenLine = selection.flatMap {
            layout.contains($0) ? screenLine(ofContentLine: layout.line(of: $0)) : nil
        }
        setSelection(target)
        let line = layout.line(of: target)
        if keepingScreenLine, let oldScreenLine, viewportHeight > 0 {
            topLine = topLine(placing: line, atScreenLine: oldScreenLine)
        }
        scroll(toLine: line, position: .nearest)
    }

    func setSelection(_ indexPath: IndexPath?) {
        guard indexPath != selection else { return }
        selection = indexPath
        delegate?.tableViewSelectionDidChange(self)
    }
}

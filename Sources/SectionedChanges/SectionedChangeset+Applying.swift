import Foundation

extension SectionedChangeset {
    /// Applies the batch to `old` rows the way a table view does: deletions (and move sources) at their
    /// old index paths first, then section insertions, then insertions (and move destinations) at their
    /// new index paths in ascending order.
    ///
    /// This is the oracle for tests: applying what a fetched-results controller reported to the rows it
    /// showed before must give exactly the rows a fresh fetch shows.
    ///
    /// - Parameters:
    ///   - old: the rows before the batch, one array per section.
    ///   - insertedElement: the element for an inserted index path (for example, the object the controller
    ///     reported with that `newIndexPath`).
    /// - Returns: the rows after the batch, or nil when the batch cannot be applied (an index out of range
    ///   or an inserted element that `insertedElement` does not know).
    public func applied<Element>(
        to old: [[Element]], insertedElement: (IndexPath) -> Element?
    ) -> [[Element]]? {
        var leaving: [Int: Set<Int>] = [:]
        for indexPath in deletedRows { leaving[indexPath.section, default: []].insert(indexPath.row) }
        var arrivals: [Int: [(row: Int, element: Element)]] = [:]
        for move in movedRows {
            guard move.from.section < old.count, move.from.row < old[move.from.section].count else { return nil }
            leaving[move.from.section, default: []].insert(move.from.row)
            arrivals[move.to.section, default: []].append((move.to.row, old[move.from.section][move.from.row]))
        }
        for indexPath in insertedRows {
            guard let element = insertedElement(indexPath) else { return nil }
            arrivals[indexPath.section, default: []].append((indexPath.row, element))
        }

        // Survivors of each old section, then placed at their new section indexes.
        let mapping = SectionMapping(
            oldCount: old.count, deletedSections: deletedSections, insertedSections: insertedSections)
        var result = [[Element]](repeating: [], count: mapping.newCount)
        for (index, rows) in old.enumerated() {
            guard let newIndex = mapping.newSection(forOld: index) else { continue }
            let gone = leaving[index] ?? []
            result[newIndex] = rows.enumerated().filter { !gone.contains($0.offset) }.map(\.element)
        }
        for (section, items) in arrivals {
            guard section >= 0, section < result.count else { return nil }
            for item in items.sorted(by: { $0.row < $1.row }) {
                guard item.row <= result[section].count else { return nil }
                result[section].insert(item.element, at: item.row)
            }
        }
        return result
    }
}

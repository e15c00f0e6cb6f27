import Foundation

/// Maps index paths from before a batch to after it, so that whatever a view keeps by position
/// (the selected row, the scroll anchor, rows that are still highlighted) follows its row.
///
/// Build it from a changeset that passed ``SectionedChangeset/validate(oldRowCounts:newRowCounts:)``.
public struct IndexMapping: Sendable {
    /// Where each old section goes.
    public let sections: SectionMapping
    private let moved: [IndexPath: IndexPath]
    private let deleted: Set<IndexPath>
    /// Per old section: sorted rows that left (deleted or moved away).
    private let removedRows: [Int: [Int]]
    /// Per new section: for the i-th arrival (inserted or moved in, in row order), how many surviving
    /// rows come before it (its row minus i). Non-decreasing, so a binary search places survivors.
    private let survivorsBeforeArrival: [Int: [Int]]

    /// Prepares the mapping for `changeset` applied to `oldSectionCount` sections.
    public init(changeset: SectionedChangeset, oldSectionCount: Int) {
        sections = SectionMapping(
            oldCount: oldSectionCount, deletedSections: changeset.deletedSections,
            insertedSections: changeset.insertedSections)
        var moved: [IndexPath: IndexPath] = [:]
        var removed: [Int: [Int]] = [:]
        var added: [Int: [Int]] = [:]
        for move in changeset.movedRows {
            moved[move.from] = move.to
            removed[move.from.section, default: []].append(move.from.row)
            added[move.to.section, default: []].append(move.to.row)
        }
        for indexPath in changeset.deletedRows {
            removed[indexPath.section, default: []].append(indexPath.row)
        }
        for indexPath in changeset.insertedRows {
            added[indexPath.section, default: []].append(indexPath.row)
        }
        self.moved = moved
        self.deleted = Set(changeset.deletedRows)
        self.removedRows = removed.mapValues { $0.sorted() }
        self.survivorsBeforeArrival = added.mapValues { rows in
            rows.sorted().enumerated().map { $0.element - $0.offset }
        }
    }

    /// The index path after the batch of the row at `old` before it, or nil when the row (or its
    /// section) was deleted.
    public func newIndexPath(for old: IndexPath) -> IndexPath? {
        if let destination = moved[old] { return destination }
        if deleted.contains(old) { return nil }
        guard let newSection = sections.newSection(forOld: old.section) else { return nil }
        // Position among the rows of the old section that stay in it.
        let removedBefore = Self.countLess(than: old.row, in: removedRows[old.section] ?? [])
        let position = old.row - removedBefore
        // Every arrival with at most `position` survivors before it lands above this row.
        let arrivalsAbove = Self.countLess(than: position + 1, in: survivorsBeforeArrival[newSection] ?? [])
        return IndexPath(row: position + arrivalsAbove, section: newSection)
    }

    /// The number of elements of `sorted` (non-decreasing) that are less than `value`.
    private static func countLess(than value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

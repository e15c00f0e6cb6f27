import Foundation

/// Where each section before a batch ends up after it.
///
/// Sections that survive keep their relative order and fill, in order, the new indexes that are not
/// inserted sections.
public struct SectionMapping: Sendable, Hashable {
    private var oldToNew: [Int?]
    /// The number of sections after the batch.
    public let newCount: Int

    /// Computes the mapping for `oldCount` sections with the given deletions (old indexes) and
    /// insertions (new indexes).
    public init(oldCount: Int, deletedSections: IndexSet, insertedSections: IndexSet) {
        newCount = oldCount - deletedSections.count + insertedSections.count
        var map = [Int?](repeating: nil, count: oldCount)
        var next = 0
        for old in 0..<oldCount where !deletedSections.contains(old) {
            while insertedSections.contains(next) { next += 1 }
            map[old] = next
            next += 1
        }
        oldToNew = map
    }

    /// The index after the batch of the section that had index `old` before it, or nil if it was deleted.
    public func newSection(forOld old: Int) -> Int? {
        guard old >= 0, old < oldToNew.count else { return nil }
        return oldToNew[old]
    }
}

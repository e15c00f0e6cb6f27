import Foundation

/// One applied change batch as the reporting adapters read it: the row changes from
/// ``ResultsCore/apply(_:reporting:resolve:)``, the sections that went and came, and the changes in reporting
/// order. Made once per batch; every adapter (delegate calls, ``SectionedChangeset``, snapshot, difference,
/// change stream) is a pure function of it, so all of them say the same thing.
struct ResultsReport<Subject> {
    /// The batch's row changes, in the core's order.
    let changes: [ResultsRowChange<Subject>]
    /// The sections before the batch.
    let oldRuns: SectionRuns
    /// Sections that are gone: their index before the batch and their number (see ``SectionNames``).
    let deletedSections: [(index: Int, section: Int32)]
    /// Sections that are new: their index after the batch and their number.
    let insertedSections: [(index: Int, section: Int32)]
    /// Offsets into ``changes`` in reporting order: deletions, insertions, moves, updates, each kind by position.
    let order: [Int]
    /// ``order`` without the results that only took a new ID where they were: rows hear nothing of those
    /// (the same object sits in the same row); those who know results by ID do.
    let rowOrder: [Int]

    /// Reports `change`, after which the sections are `newRuns`.
    init(_ change: ResultsChange<Subject>, newRuns: SectionRuns) {
        changes = change.changes
        oldRuns = change.oldRuns
        let newSections = Set(newRuns.sections)
        let oldSections = Set(change.oldRuns.sections)
        deletedSections = change.oldRuns.sections.enumerated().filter { !newSections.contains($0.element) }
            .map { ($0.offset, $0.element) }
        insertedSections = newRuns.sections.enumerated().filter { !oldSections.contains($0.element) }
            .map { ($0.offset, $0.element) }
        order = Self.reportingOrder(of: changes)
        rowOrder = changes.contains(where: \.identityOnly)
            ? order.filter { [changes] in !(changes[$0].identityOnly && changes[$0].type == .update) } : order
    }

    /// Whether any row or section changed (a batch of new IDs in place changes none).
    var rowsChanged: Bool { !rowOrder.isEmpty || !deletedSections.isEmpty || !insertedSections.isEmpty }

    /// The changes in reporting order, read where they are (no copy of the batch).
    var ordered: LazyMapSequence<[Int], ResultsRowChange<Subject>> { order.lazy.map { [changes] in changes[$0] } }

    /// The offsets of `changes` in reporting order: deletions, insertions, moves, updates; each kind by its
    /// position (old for all but insertions).
    ///
    /// Positions within one kind are distinct, so the order is that of the integers (kind, position): sorted by
    /// counting, eleven bits of them at a time — a few passes over the batch, where a comparison sort of a
    /// batch of thousands costs several times more. A small batch (one edit is a batch of one) is simply
    /// sorted: clearing the counters would cost more than sorting it.
    static func reportingOrder(of changes: [ResultsRowChange<Subject>]) -> [Int] {
        func rank(_ type: FetchedResultsChangeType) -> Int {
            switch type {
            case .delete: 0
            case .insert: 1
            case .move: 2
            case .update: 3
            }
        }
        // (Fields are read in place: copying a change would count a reference to its object.)
        var keys = [Int](repeating: 0, count: changes.count)
        var largestPosition = 0
        for offset in changes.indices {
            let type = changes[offset].type
            let position = type == .insert ? changes[offset].newIndex ?? 0
                : changes[offset].oldIndex ?? changes[offset].newIndex ?? 0
            keys[offset] = position
            largestPosition = max(largestPosition, position)
        }
        // The kind above the largest position's bits.
        let kindShift = Int.bitWidth - largestPosition.leadingZeroBitCount
        for offset in changes.indices { keys[offset] |= rank(changes[offset].type) << kindShift }
        guard changes.count >= 64 else { return changes.indices.sorted { keys[$0] < keys[$1] } }
        let significantBits = kindShift + 2
        let digitBits = 11
        let digitMask = 1 << digitBits - 1
        var order = Array(changes.indices)
        var scratch = order
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        var shift = 0
        keys.withUnsafeBufferPointer { keys in
            counts.withUnsafeMutableBufferPointer { counts in
                while shift < significantBits {
                    counts.update(repeating: 0)
                    for key in keys { counts[(key >> shift) & digitMask] += 1 }
                    var start = 0
                    for slot in counts.indices { (counts[slot], start) = (start, start + counts[slot]) }
                    order.withUnsafeBufferPointer { order in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            for offset in order {
                                let digit = (keys[offset] >> shift) & digitMask
                                scratch[counts[digit]] = offset
                                counts[digit] += 1
                            }
                        }
                    }
                    swap(&order, &scratch)
                    shift += digitBits
                }
            }
        }
        return order
    }
}

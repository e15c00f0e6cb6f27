import Foundation

extension AnyFetchedResultsController {
    /// Re-chooses which objects move when the fast classification produced a move that starts and ends
    /// at the same index path (an object that changed order while rows around it came and went, landing
    /// on its old coordinates). UIKit accepts such a move, but the contract is stricter: an object whose
    /// index path is unchanged is reported as an update, never as a move to the same place.
    ///
    /// Every object present before and after (a survivor) either keeps its place — the kept ones must be
    /// in the same relative order before and after, and in the same section — or is reported as a move.
    /// Around each such move this picks the heaviest such set by weighted longest-increasing-subsequence:
    /// survivors whose index path is unchanged must stay, unchanged objects prefer staying over changed
    /// ones. An unchanged object that has to make room is then reported as a move (it is reported once,
    /// like every other).
    ///
    /// Only a *closed window* of survivors is re-chosen: the survivor ranks spanned by the offending
    /// moves, widened until no changed survivor crosses its edges — then the survivors before it are the
    /// same before and after, and so are those after it, and the choice outside stands. The window is
    /// about as wide as the changed rows near the move, so the cost stays O(k log k) for k changes
    /// instead of a pass over all n results.
    func avoidingSamePathMoves(
        _ changes: [ResultsObjectChange], oldRuns: SectionRuns, oldCount: Int
    ) -> [ResultsObjectChange] {
        guard changes.contains(where: { $0.type == .move && $0.oldPath == $0.newPath }) else { return changes }
        var deletedOld: [Int] = []
        var insertedNew: [Int] = []
        // Changed survivors: offset into `changes`, old and new index.
        var changed: [(offset: Int, old: Int, new: Int)] = []
        for (offset, change) in changes.enumerated() {
            switch change.type {
            case .delete: if let old = change.oldIndex { deletedOld.append(old) }
            case .insert: if let new = change.newIndex { insertedNew.append(new) }
            case .move, .update:
                guard let old = change.oldIndex, let new = change.newIndex else { continue }
                changed.append((offset, old, new))
            }
        }
        deletedOld.sort()
        insertedNew.sort()
        // A survivor's rank: its place among survivors, before (old) and after (new).
        func oldRank(_ old: Int) -> Int { old - deletedOld.countBelow(old) }
        func newRank(_ new: Int) -> Int { new - insertedNew.countBelow(new) }
        let survivorCount = oldCount - deletedOld.count
        let spans = changed.map { change -> ClosedRange<Int> in
            let (from, to) = (oldRank(change.old), newRank(change.new))
            return min(from, to)...max(from, to)
        }

        // Windows: the offending moves' spans, merged with every changed survivor's span they touch.
        var windows = Self.mergedRanges(changed.indices.filter {
            let change = changes[changed[$0].offset]
            return change.type == .move && change.oldPath == change.newPath
        }.map { spans[$0] })
        while true {
            let widened = Self.mergedRanges(windows + spans.filter { span in windows.contains { $0.overlaps(span) } })
            if widened == windows { break }
            windows = widened
        }

        var replaced: [Int: ResultsObjectChange] = [:]  // by offset into `changes`
        var extraMoves: [ResultsObjectChange] = []
        let changedByNew = Dictionary(changed.map { ($0.new, $0) }, uniquingKeysWith: { first, _ in first })
        let changedOld = Set(changed.map(\.old))
        var scratchOldRuns = oldRuns
        for window in windows where window.lowerBound < survivorCount {
            let ranks = window.lowerBound...min(window.upperBound, survivorCount - 1)
            // Unchanged survivors of the window in old order (the same ones, in the same order, as in new
            // order: the window is closed).
            var unchangedOld: [Int] = []
            var old = Self.nthValue(notIn: deletedOld, rank: ranks.lowerBound)
            for _ in ranks {
                while deletedOld.containsSorted(old) { old += 1 }
                if !changedOld.contains(old) { unchangedOld.append(old) }
                old += 1
            }
            var survivors: [(old: Int, new: Int, change: Int?)] = []
            var cursor = 0
            var new = Self.nthValue(notIn: insertedNew, rank: ranks.lowerBound)
            for _ in ranks {
                while insertedNew.containsSorted(new) { new += 1 }
                if let change = changedByNew[new] {
                    survivors.append((change.old, new, change.offset))
                } else if cursor < unchangedOld.count {
                    survivors.append((unchangedOld[cursor], new, nil))
                    cursor += 1
                }
                new += 1
            }
            let big = 4 * (survivors.count + 1)
            let weights = survivors.map { survivor -> Int in
                let (oldSection, oldRow) = scratchOldRuns.locate(survivor.old)
                let (newSection, newRow) = runs.locate(survivor.new)
                guard oldRuns.sections[oldSection] == runs.sections[newSection] else { return 0 }  // must move
                if oldSection == newSection, oldRow == newRow { return big }
                return survivor.change == nil ? 2 : 1
            }
            let kept = Self.heaviestIncreasingRun(survivors.map { oldRank($0.old) - ranks.lowerBound },
                weights: weights, domain: ranks.count)
            for (position, survivor) in survivors.enumerated() {
                let stays = kept.contains(position)
                if let offset = survivor.change {
                    let change = changes[offset]
                    replaced[offset] = ResultsObjectChange(object: change.object, type: stays ? .update : .move,
                        oldID: change.oldID, newID: change.newID, oldIndex: change.oldIndex,
                        newIndex: change.newIndex, oldPath: change.oldPath, newPath: change.newPath)
                } else if !stays {
                    let id = namespaces.id(for: index[survivor.new].placed)
                    guard let object = try? managedObjectContext.object(with: id) else { continue }
                    let (oldSection, oldRow) = scratchOldRuns.locate(survivor.old)
                    extraMoves.append(ResultsObjectChange(object: object, type: .move, oldID: id, newID: id,
                        oldIndex: survivor.old, newIndex: survivor.new,
                        oldPath: RowPath(section: oldSection, row: oldRow),
                        newPath: rowPath(forGlobalIndex: survivor.new)))
                }
            }
        }
        return changes.indices.map { replaced[$0] ?? changes[$0] } + extraMoves
    }

    /// `ranges` sorted and with overlapping or touching ones joined.
    static func mergedRanges(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var merged: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The `rank`-th (from 0) non-negative integer that is not in `sorted` (ascending, distinct).
    static func nthValue(notIn sorted: [Int], rank: Int) -> Int {
        // The answer x is the smallest with x + 1 - (members <= x) > rank; it lies in rank...rank + count.
        var low = rank
        var high = rank + sorted.count
        while low < high {
            let mid = (low + high) / 2
            if mid + 1 - sorted.countBelow(mid + 1) > rank { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Positions of a strictly increasing subsequence of `values` (distinct, in 0..<domain) with the
    /// greatest total weight; zero-weight elements are never chosen.
    static func heaviestIncreasingRun(_ values: [Int], weights: [Int], domain: Int) -> Set<Int> {
        // best[i]: the heaviest run ending at position i; a Fenwick tree gives the best run ending below
        // a value.
        var tree = [(weight: Int, position: Int)](repeating: (0, -1), count: domain + 1)
        var previous = [Int](repeating: -1, count: values.count)
        var best = [Int](repeating: 0, count: values.count)
        func query(_ value: Int) -> (weight: Int, position: Int) {  // best over values < value
            var result = (weight: 0, position: -1)
            var node = value
            while node > 0 {
                if tree[node].weight > result.weight { result = tree[node] }
                node -= node & -node
            }
            return result
        }
        func update(_ value: Int, _ entry: (weight: Int, position: Int)) {
            var node = value + 1
            while node <= domain {
                if entry.weight > tree[node].weight { tree[node] = entry }
                node += node & -node
            }
        }
        var top = (weight: 0, position: -1)
        for (position, value) in values.enumerated() where weights[position] > 0 && value < domain {
            let below = query(value)
            best[position] = below.weight + weights[position]
            previous[position] = below.position
            update(value, (best[position], position))
            if best[position] > top.weight { top = (best[position], position) }
        }
        var chosen: Set<Int> = []
        var cursor = top.position
        while cursor >= 0 {
            chosen.insert(cursor)
            cursor = previous[cursor]
        }
        return chosen
    }
}

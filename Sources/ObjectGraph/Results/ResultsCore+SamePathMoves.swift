import Foundation

extension ResultsCore {
    /// Re-chooses which objects move when the fast classification produced a move that starts and ends
    /// at the same index path (an object that changed order while rows around it came and went, landing
    /// on its old coordinates). UIKit accepts such a move, but the contract is stricter: an object whose
    /// index path is unchanged is reported as an update, never as a move to the same place.
    ///
    /// The objects that keep their place (unchanged ones and updates) are in the same relative order
    /// before and after — that is what makes the batch valid. Such a mover is made to keep its place too:
    /// it fits among the kept objects except for those it passed (it was before them and is now after
    /// them, or the reverse). Among the mover and those it passed, the heaviest set that can stay is chosen
    /// by weighted longest-increasing-subsequence — the mover and anything else whose index path is
    /// unchanged must stay, unchanged objects prefer staying over changed ones — and the passed objects
    /// that cannot stay become moves (an unchanged one is then reported once, as a move).
    ///
    /// Only the kept objects the movers passed are looked at: O(k log k) for k changes, however many
    /// results there are, and however far other objects moved. `resolve` gives the subject of such an
    /// object that must move and that `changes` do not name.
    mutating func avoidingSamePathMoves<Subject>(
        _ changes: [ResultsRowChange<Subject>], oldRuns: SectionRuns, oldCount: Int,
        resolve: (ResultID) -> Subject?
    ) -> [ResultsRowChange<Subject>] {
        // (Fields read in place: iterating the changes would copy each, counting a reference to its object.)
        guard changes.indices.contains(where: { changes[$0].type == .move && changes[$0].oldPath == changes[$0].newPath })
        else { return changes }
        // Rows that are not kept: deleted and moved ones (old positions), inserted and moved ones (new).
        var leftOld: [Int] = []
        var arrivedNew: [Int] = []
        var updateByOld: [Int: Int] = [:]  // kept changes: old index -> offset into `changes`
        var samePathMovers: [Int] = []
        for (offset, change) in changes.enumerated() {
            switch change.type {
            case .delete: if let old = change.oldIndex { leftOld.append(old) }
            case .insert: if let new = change.newIndex { arrivedNew.append(new) }
            case .move:
                guard let old = change.oldIndex, let new = change.newIndex else { continue }
                leftOld.append(old)
                arrivedNew.append(new)
                // (The same coordinates in another section — one was inserted or deleted before it — are a
                // real move.)
                if let path = change.oldPath, path == change.newPath, path.section < oldRuns.count,
                    path.section < runs.count, oldRuns.sections[path.section] == runs.sections[path.section]
                {
                    samePathMovers.append(offset)
                }
            case .update:
                if let old = change.oldIndex { updateByOld[old] = offset }
            }
        }
        leftOld.sort()
        arrivedNew.sort()
        // A kept object's rank among the kept ones is the same before and after.
        func keptRankBefore(old: Int) -> Int { old - leftOld.countBelow(old) }
        func keptRankBefore(new: Int) -> Int { new - arrivedNew.countBelow(new) }

        // Each mover conflicts with the kept ranks between where it was and where it is among them.
        var windows: [ClosedRange<Int>] = []
        var movers: [(range: ClosedRange<Int>?, offset: Int)] = []
        for offset in samePathMovers {
            guard let old = changes[offset].oldIndex, let new = changes[offset].newIndex else { continue }
            let (from, to) = (keptRankBefore(old: old), keptRankBefore(new: new))
            let range = from == to ? nil : min(from, to)...(max(from, to) - 1)
            if let range { windows.append(range) }
            movers.append((range, offset))
        }
        windows = Self.mergedRanges(windows)

        var replaced: [Int: ResultsRowChange<Subject>] = [:]  // by offset into `changes`
        var extraMoves: [ResultsRowChange<Subject>] = []
        func reclassify(_ offset: Int, as type: FetchedResultsChangeType) {
            let change = changes[offset]
            replaced[offset] = ResultsRowChange(object: change.object, type: type, oldID: change.oldID,
                newID: change.newID, oldIndex: change.oldIndex, newIndex: change.newIndex,
                oldPath: change.oldPath, newPath: change.newPath, identityOnly: change.identityOnly)
        }
        // A mover that passed no kept object simply stays.
        for mover in movers where mover.range == nil { reclassify(mover.offset, as: .update) }

        var scratchOldRuns = oldRuns
        for window in windows {
            // The kept objects of the window, in order (the same order before and after).
            var members: [(old: Int, new: Int, change: Int?)] = []
            var old = Self.nthValue(notIn: leftOld, rank: window.lowerBound)
            var new = Self.nthValue(notIn: arrivedNew, rank: window.lowerBound)
            for _ in window {
                while leftOld.containsSorted(old) { old += 1 }
                while arrivedNew.containsSorted(new) { new += 1 }
                guard old < oldCount, new < index.count else { break }
                members.append((old, new, updateByOld[old]))
                old += 1
                new += 1
            }
            for mover in movers {
                guard let range = mover.range, window.contains(range.lowerBound),
                    let old = changes[mover.offset].oldIndex, let new = changes[mover.offset].newIndex
                else { continue }
                members.append((old, new, mover.offset))
            }
            members.sort { $0.new < $1.new }
            let oldOrder = members.map(\.old).sorted()
            let values = members.map { oldOrder.countBelow($0.old) }
            let big = 4 * (members.count + 1)
            let weights = members.map { member -> Int in
                let (oldSection, oldRow) = scratchOldRuns.locate(member.old)
                let (newSection, newRow) = runs.locate(member.new)
                guard oldRuns.sections[oldSection] == runs.sections[newSection] else { return 0 }  // must move
                if oldSection == newSection, oldRow == newRow { return big }
                return member.change == nil ? 2 : 1
            }
            let kept = Self.heaviestIncreasingRun(values, weights: weights, domain: members.count)
            for (position, member) in members.enumerated() {
                let stays = kept.contains(position)
                if let offset = member.change {
                    reclassify(offset, as: stays ? .update : .move)
                } else if !stays {
                    let placed = index[member.new].placed
                    guard let object = resolve(placed) else { continue }
                    let (oldSection, oldRow) = scratchOldRuns.locate(member.old)
                    extraMoves.append(ResultsRowChange(object: object, type: .move, oldID: placed, newID: placed,
                        oldIndex: member.old, newIndex: member.new,
                        oldPath: RowPath(section: oldSection, row: oldRow),
                        newPath: rowPath(forGlobalIndex: member.new)))
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

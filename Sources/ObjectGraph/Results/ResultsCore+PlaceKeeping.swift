/// Which re-placed results keep their place in a change batch (reported as updates) and which move: the fewest
/// moves that turn the old order into the new.
extension ResultsCore {
    /// Which replaced objects (by offset in `places`) keep their place and are reported as updates.
    ///
    /// Objects that neither left nor arrived keep their relative order, so a replaced object stays put
    /// when it sits between the same such neighbours before and after (its rank among them — its index
    /// minus the leavers before it, or minus the arrivals before it — is unchanged) and in the same
    /// section. Among several in one gap, the longest run in old order stays and the others move: the
    /// fewest moves.
    static func replacedKeepingTheirPlace(
        _ places: [(oldIndex: Int, newIndex: Int, sameSection: Bool)], leavingOldIndexes: [Int],
        arrivingNewIndexes: [Int]
    ) -> Set<Int> {
        var gaps: [Int: [(offset: Int, oldIndex: Int, newIndex: Int)]] = [:]
        for (offset, place) in places.enumerated() where place.sameSection {
            let oldRank = place.oldIndex - leavingOldIndexes.countBelow(place.oldIndex)
            let newRank = place.newIndex - arrivingNewIndexes.countBelow(place.newIndex)
            if oldRank == newRank { gaps[oldRank, default: []].append((offset, place.oldIndex, place.newIndex)) }
        }
        var result: Set<Int> = []
        for (_, members) in gaps {
            let byNew = members.sorted { $0.newIndex < $1.newIndex }
            for position in longestIncreasingRun(byNew.map(\.oldIndex)) { result.insert(byNew[position].offset) }
        }
        return result
    }

    /// Positions in `values` forming a longest strictly increasing subsequence (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        guard values.count > 1 else { return Array(values.indices) }
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.append(cursor)
            cursor = previous[cursor]
        }
        return run
    }
}

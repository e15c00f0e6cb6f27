/// Results whose IDs changed (temporary to permanent), taken up where that moves nothing.
///
/// The ID is the last sort key, so a new ID can change a result's place among results whose sort keys tie with
/// its own. Such results are taken in runs of adjacent ones: a run whose new order bytes keep it in order,
/// between the same neighbours, takes its new IDs in place; any other run is left to be re-placed as a whole
/// (by a batch, see ``apply(_:reporting:resolve:)``), so that the moves are reported.
extension ResultsCore {
    /// A result whose ID changed: where it is, the ID and order bytes it was placed with, and its new ones.
    struct NewID {
        let position: Int
        let placed: ResultID
        let order: [UInt8]
        let newPlaced: ResultID
        let newOrder: [UInt8]
    }

    /// Gives the results of `changed` (distinct positions, any order) their new IDs in place, run by run, where
    /// that keeps every result in order; returns the offsets into `changed` of those left to be re-placed.
    mutating func adoptInPlace(_ changed: [NewID]) -> [Int] {
        guard !changed.isEmpty else { return [] }
        var orders = builtOrderBytesByID()
        orderBytesByID = nil
        defer { orderBytesByID = orders }
        let byPosition = changed.indices.sorted { changed[$0].position < changed[$1].position }
        var left: [Int] = []
        var start = 0
        while start < byPosition.count {
            var end = start + 1
            while end < byPosition.count,
                changed[byPosition[end]].position == changed[byPosition[end - 1]].position + 1
            {
                end += 1
            }
            let run = byPosition[start..<end]
            if keepsOrder(run.map { changed[$0] }) {
                for offset in run {
                    let member = changed[offset]
                    guard index.replaceID(member.placed, order: member.order, with: member.newPlaced,
                        newOrder: member.newOrder)
                    else { continue }
                    orders[member.placed] = nil
                    orders[member.newPlaced] = member.newOrder
                }
            } else {
                left.append(contentsOf: run)
            }
            start = end
        }
        return left
    }

    /// Whether a run of adjacent results (in order of position), given their new order bytes, stays in order
    /// among itself and between the results around it.
    private mutating func keepsOrder(_ run: [NewID]) -> Bool {
        guard let first = run.first, let last = run.last else { return true }
        if first.position > 0, RowOrdering.compare(index[first.position - 1].order, first.newOrder) >= 0 {
            return false
        }
        if last.position + 1 < index.count, RowOrdering.compare(last.newOrder, index[last.position + 1].order) >= 0 {
            return false
        }
        return zip(run, run.dropFirst()).allSatisfy { RowOrdering.compare($0.newOrder, $1.newOrder) < 0 }
    }
}

import Foundation
import Testing
@testable import ObjectGraph

/// The order a batch's changes are reported in — deletions, insertions, moves, updates, each kind by
/// position — against a plain sort, for batches small (sorted) and large (counted) alike.
@Suite struct ReportingOrderTests {
    @Test(arguments: [0, 1, 2, 63, 64, 65, 500, 3_000])
    func matchesSortingByKindThenPosition(count: Int) {
        var random = SeededRandom(seed: UInt64(count) + 1)
        let object = ManagedObject(entity: TestModels.item(), insertInto: nil)
        let types: [FetchedResultsChangeType] = [.delete, .insert, .move, .update]
        // Distinct positions within each kind, some far apart (so that several counting passes are needed).
        var used: [FetchedResultsChangeType: Set<Int>] = [:]
        let changes = (0..<count).map { _ -> ResultsObjectChange in
            let type = types[Int.random(in: 0..<4, using: &random)]
            var position: Int
            repeat {
                position = Int.random(in: 0..<(random.chance(0.1) ? 5_000_000 : 3_000), using: &random)
            } while used[type, default: []].insert(position).inserted == false
            return ResultsObjectChange(object: object, type: type,
                oldIndex: type == .insert ? nil : position, newIndex: type == .insert ? position : position + 1)
        }
        func rank(_ type: FetchedResultsChangeType) -> Int { types.firstIndex(of: type) ?? 0 }
        func position(_ change: ResultsObjectChange) -> Int { (change.type == .insert ? change.newIndex : change.oldIndex) ?? 0 }
        let expected = changes.indices.sorted {
            (rank(changes[$0].type), position(changes[$0])) < (rank(changes[$1].type), position(changes[$1]))
        }
        #expect(ResultsReport.reportingOrder(of: changes) == expected)
    }
}

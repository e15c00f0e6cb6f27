import Foundation
import Testing
@testable import ObjectGraph

/// The controller's ID → order-bytes tables (open addressing, runs shifted back on removal), against a
/// `Dictionary` over seeded random histories.
@Suite struct PlacedOrdersTests {
    /// Inserts, replacements, removals (of present and absent IDs) and lookups; keys crowd a few shards and
    /// repeat across namespaces, so runs are long and wrap around; shards are grown ahead now and then.
    @Test(arguments: [1, 2, 3, 4, 5])
    func matchesADictionaryOverRandomHistories(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = OrderBytesByID()
        var oracle: [ResultID: [UInt8]] = [:]
        let keyRange: Int64 = seed.isMultiple(of: 2) ? 300 : 5_000
        for step in 0..<20_000 {
            // Keys that are multiples of 64 all land in one shard.
            let key = Int64.random(in: 0..<keyRange, using: &random) * (seed == 3 ? 64 : 1)
            let id = ResultID(key: key, namespace: UInt32.random(in: 0..<3, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let order = [UInt8(truncatingIfNeeded: step), UInt8(truncatingIfNeeded: key)]
                table[id] = order
                oracle[id] = order
            case 5..<8:
                table[id] = nil
                oracle[id] = nil
            default:
                if step.isMultiple(of: 7) { table.growOneShardAhead() }
            }
            #expect(table[id] == oracle[id], "step \(step), seed \(seed)")
            if step.isMultiple(of: 2_000) {
                #expect(table.count == oracle.count)
                for (id, order) in oracle { #expect(table[id] == order) }
            }
        }
        #expect(table.count == oracle.count)
        for (id, order) in oracle { #expect(table[id] == order, "seed \(seed)") }
        // Everything removed: nothing found, nothing counted.
        for id in oracle.keys { table[id] = nil }
        #expect(table.count == 0)
        #expect(oracle.keys.allSatisfy { table[$0] == nil })
    }
}

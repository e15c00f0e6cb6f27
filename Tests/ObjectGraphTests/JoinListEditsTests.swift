import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// `JoinListEdits` against the naive one-change-at-a-time editing it replaces, over random adds and removes on a few
/// lists (existing and new, members added twice, removed twice, removed before they were added).
struct JoinListEditsTests {
    @Test func randomEditsGiveWhatEditingOneChangeAtATimeGives() {
        var random = SeededRandom(seed: 0x101_57)
        let ids = (1...12).map { ManagedObjectID(entityName: "Tag", storeIdentifier: "S", primaryKey: Int64($0)) }
        for _ in 0..<300 {
            var joins: [String: [ManagedObjectID]] = [:]
            for key in ["a", "b"] where random.chance(0.7) {
                joins[key] = Array(Set((0..<Int.random(in: 0...6, using: &random)).map { _ in random.pick(ids) }))
            }
            var naive = joins
            var edits = JoinListEdits()
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                let key = random.pick(["a", "b", "c"])
                if random.chance(0.6) {
                    let id = random.pick(ids)
                    var list = naive[key, default: []]
                    if !list.contains(id) { list.append(id) }
                    naive[key] = list
                    edits.append(id, to: key, in: joins)
                } else {
                    let removed = (0..<Int.random(in: 1...3, using: &random)).map { _ in random.pick(ids) }
                    naive[key] = naive[key, default: []].filter { !removed.contains($0) }
                    edits.remove(removed, from: key, in: joins)
                }
            }
            edits.write(into: &joins)
            #expect(joins == naive)
        }
    }
}

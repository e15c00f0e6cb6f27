import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Opening a PostgreSQL store reads every row into the client's replica, a part at a time in one snapshot; when the
/// caller follows the opening through Foundation's `Progress`, each part is reported. The replica holds exactly
/// what the saves wrote, however many parts it took.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresOpeningProgressTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "serial", type: .integer64), AttributeDescription(name: "name", type: .string),
            ]),
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)]),
        ])
    }

    /// Every row the store answers, as text, in key order.
    static func contents(_ store: PostgresStore, _ model: ManagedObjectModel) throws -> [String] {
        var lines: [String] = []
        for entity in model.entities {
            let rows = try store.fetch(StoreFetchRequest(entity: entity))
            lines += rows.map { "\($0.objectID) v\($0.version) \($0.values)" }.sorted()
        }
        return lines
    }

    @Test func aFollowedOpeningReadsInPartsAndReportsEach() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let count = 2 * PostgresStore.partSize + 123
        let coordinator = try database.coordinator(model: model)
        var random = SeededRandom(seed: 135)
        for start in stride(from: 0, to: count, by: 10_000) {
            let objects: [[String: AttributeValue]] = (start..<min(start + 10_000, count)).map { serial in
                ["serial": .integer(Int64(serial)), "name": .string("item \(Int.random(in: 0..<1_000, using: &random))")]
            }
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: objects))
        }
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Note", objects: [["text": .string("one")]]))
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let expected = try Self.contents(store, model)
        #expect(expected.count == count + 1)

        var reported: [Double] = []
        try store.withLock { () throws(ObjectGraphError) in try store.reloadAll(reporting: { reported.append($0) }) }
        #expect(try Self.contents(store, model) == expected)
        // Three parts of Item (the last short), one of Note; the fractions grow to the rows' 90 %.
        #expect(reported.count == 4)
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs((reported.last ?? 0) - 0.9) < 1e-9)

        // Through a coordinator, under the caller's progress: done when the store is added, with every row.
        let progress = Progress(totalUnitCount: 1)
        progress.becomeCurrent(withPendingUnitCount: 1)
        let another = try database.coordinator(model: model)
        progress.resignCurrent()
        #expect(progress.fractionCompleted == 1)
        let opened = try #require(another.persistentStores.first?.incrementalStore as? PostgresStore)
        #expect(try Self.contents(opened, model) == expected)

        // Unfollowed, the rows are read in the same parts, without reports.
        let unfollowed = try database.coordinator(model: model)
        let plain = try #require(unfollowed.persistentStores.first?.incrementalStore as? PostgresStore)
        #expect(try Self.contents(plain, model) == expected)
    }
}

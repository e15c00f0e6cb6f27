import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// The persistent history of a PostgreSQL store (its `Z_CHANGES` log), through the coordinator's history API.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresHistoryTests {
    @Test func anotherClientsTransactionsAreFetchedAfterAToken() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresStoreTests.valuesModel()
        let writer = PostgresStoreTests.context(try database.coordinator(model: model))
        writer.transactionAuthor = "importer"
        let ids = try writer.performAndWait {
            let items = try (0..<2).map { _ in try writer.insertNewObject(forEntityName: "Item") }
            try writer.save()
            items[0].setValue(.string("changed"), forKey: "text")
            try writer.save()
            return items.map(\.objectID)
        }
        let reader = try database.coordinator(model: model)
        let all = try reader.fetchHistory(after: nil as HistoryToken?)
        #expect(all.map(\.author) == ["importer", "importer"])
        #expect(all.first?.changes.map(\.changeType) == [.insert, .insert])
        #expect(Set(all.first?.changes.map(\.changedObjectID) ?? []) == Set(ids))
        #expect(all.last?.changes.map(\.changedObjectID) == [ids[0]])
        #expect(all.last?.changes.map(\.changeType) == [.update])

        let token = try #require(try reader.currentPersistentHistoryToken())
        #expect(try reader.fetchHistory(after: token).isEmpty)
        try writer.performAndWait {
            writer.delete(try writer.existingObject(with: ids[1]))
            try writer.save()
        }
        let later = try reader.fetchHistory(after: token)
        #expect(later.count == 1)
        #expect(later.first?.changes.map(\.changeType) == [.delete])
        #expect(later.first?.changes.map(\.changedObjectID) == [ids[1]])
        #expect(later.first.map { $0.transactionNumber > token.transactionNumber(forStore: $0.storeIdentifier) } == true)
        #expect(throws: ObjectGraphError.self) { try reader.deleteHistory(before: token) }
    }
}

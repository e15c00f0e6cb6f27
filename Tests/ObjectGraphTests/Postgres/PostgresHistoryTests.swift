import Dispatch
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
    }

    /// Purging: the transactions through a token go, a token from before them has expired, later ones are kept,
    /// numbering goes on above the purged ones (also after purging everything), and a client whose connection was
    /// down while another purged the transactions it had not seen reads every row again and reports the difference
    /// as one commit, instead of missing it.
    @Test func purgedHistoryExpiresOldTokensAndStaleClientsReadEverythingAgain() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresStoreTests.valuesModel()
        let writerCoordinator = try database.coordinator(model: model)
        let writer = PostgresStoreTests.context(writerCoordinator)
        func insert(_ text: String) throws -> ManagedObjectID {
            try writer.performAndWait {
                let item = try writer.insertNewObject(forEntityName: "Item")
                item.setValue(.string(text), forKey: "text")
                try writer.save()
                return item.objectID
            }
        }
        let empty = try #require(try writerCoordinator.currentPersistentHistoryToken())
        _ = try insert("one")
        let afterOne = try #require(try writerCoordinator.currentPersistentHistoryToken())
        _ = try insert("two")
        #expect(try writerCoordinator.deleteHistory(before: afterOne) == 1)
        let expired = #expect(throws: ObjectGraphError.self) { try writerCoordinator.fetchHistory(after: empty) }
        guard case .historyTokenExpired? = expired else {
            Issue.record("expected historyTokenExpired, got \(String(describing: expired))")
            return
        }
        #expect(try writerCoordinator.fetchHistory(after: afterOne).count == 1, "the later transaction stays")

        // A client that stops following (its connection down), misses two commits and a purge of everything.
        let staleCoordinator = try database.coordinator(model: model, remoteChanges: true)
        let stale = try #require((staleCoordinator.persistentStores.first?.backend as? ForeignStoreBackend)?.store as? PostgresStore)
        let remote = RemoteCommitEvents(staleCoordinator)
        try stale.withLock { () throws(ObjectGraphError) in stale.listener?.stop() }
        let three = try insert("three")
        let four = try insert("four")
        let beforePurge = try #require(try writerCoordinator.currentPersistentHistoryToken())
        #expect(try writerCoordinator.deleteHistory(before: beforePurge) == 3)
        #expect(try writerCoordinator.fetchHistory(after: nil as HistoryToken?).isEmpty)
        // Numbers are never reused: the next commit comes after the purged ones.
        let five = try insert("five")
        let newest = try writerCoordinator.fetchHistory(after: beforePurge)
        #expect(newest.count == 1)
        #expect(newest.first.map { $0.transactionNumber > beforePurge.transactionNumber(forStore: $0.storeIdentifier) } == true)

        // The stale client's next fetch catches up: every row read again, the difference reported.
        let reader = PostgresStoreTests.context(staleCoordinator)
        let texts = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "text").stringValue }
        }
        #expect(Set(texts) == ["one", "two", "three", "four", "five"])
        // (Events are delivered on the store's queue: wait for the one that says so, with a generous bound so that
        // a lost one fails the test instead of hanging it.)
        var inserted: Set<ManagedObjectID> = []
        while !inserted.isSuperset(of: [three, four, five]), remote.next() {
            inserted = Set(remote.events.flatMap(\.insertedObjectIDs))
        }
        #expect(inserted.isSuperset(of: [three, four, five]), "reported: \(inserted)")
    }
}

import Foundation
import Testing
import SQLiteStorage
import TestSupport
@testable import ObjectGraph

/// Persistent history (issue 31): every transaction recorded with its data, in Apple's tables; tokens, purges,
/// authors, tombstones, batch requests; and the commit events every committed transaction produces.
@Suite struct PersistentHistoryTests {
    /// A model whose people keep their email in the history when deleted.
    static func model() throws -> ManagedObjectModel {
        var email = AttributeDescription(name: "email", type: .string)
        email.preservesValueInHistoryOnDeletion = true
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [
                AttributeDescription(name: "firstName", type: .string),
                AttributeDescription(name: "lastName", type: .string, isOptional: false),
                email,
                AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            ])
        ])
    }

    /// A coordinator on `url` with history tracking (and, when asked, the remote-change watcher).
    static func coordinator(_ url: URL, watching: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        options.remoteChangeNotifications = watching
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator, author: String? = nil, name: String? = nil)
        -> ManagedObjectContext
    {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = author
        context.name = name
        return context
    }

    @Test func savesAreRecordedInOrderWithAuthorsChangedKeysAndTombstones() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.coordinator(directory.file("h.sqlite"))
        let context = Self.context(coordinator, author: "tester", name: "main")
        let ids: [ManagedObjectID] = try context.performAndWait {
            let people = try (0..<3).map { index in
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "L\(index)"
                person["email"] = "p\(index)@example.org"
                return person
            }
            try context.save()
            people[1]["age"] = Int64(40)
            try context.save()
            context.transactionAuthor = "remover"
            context.delete(people[2])
            try context.save()
            return people.map(\.objectID)
        }
        let history = try coordinator.fetchHistory(after: nil)
        try #require(history.count == 3)
        #expect(history.map(\.transactionNumber) == history.map(\.transactionNumber).sorted())
        #expect(history.map(\.author) == ["tester", "tester", "remover"])
        #expect(history.allSatisfy { $0.contextName == "main" })
        #expect(history.allSatisfy { $0.processID == String(ProcessInfo.processInfo.processIdentifier) })
        #expect(Set(history[0].changes.map(\.changedObjectID)) == Set(ids))
        #expect(history[0].changes.allSatisfy { $0.changeType == .insert })
        #expect(history[1].changes.map(\.changedObjectID) == [ids[1]])
        #expect(history[1].changes.first?.updatedProperties == ["age"])
        let deletion = try #require(history[2].changes.first)
        #expect(deletion.changeType == .delete && deletion.changedObjectID == ids[2])
        #expect(deletion.tombstone == ["email": .string("p2@example.org")])
        // Tokens: after the first transaction's token come the other two; the current token covers all.
        #expect(try coordinator.fetchHistory(after: history[0].token).map(\.transactionNumber)
            == history.dropFirst().map(\.transactionNumber))
        #expect(try coordinator.currentPersistentHistoryToken() == history[2].token)
        #expect(history[0].token < history[2].token && !(history[2].token < history[0].token))
    }

    @Test func theTablesAreApplesLayout() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("h.sqlite")
        let coordinator = try Self.coordinator(url)
        let context = Self.context(coordinator, author: "a")
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person")["lastName"] = "X"
            try context.save()
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        let keys = try connection.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
        #expect(keys.map { $0[1] } == [.text("CHANGE"), .text("TRANSACTION"), .text("TRANSACTIONSTRING")])
        #expect(keys[0][2] == .integer(1) && keys[1][2] == .integer(1))
        let change = try connection.rows("SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID FROM ACHANGE")
        #expect(change == [[.integer(16001), .integer(0), .integer(1), .integer(1), .integer(1)]])
        let author = try connection.scalar(
            "SELECT s.ZNAME FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS")
        #expect(author == .text("a"))
        let timestamp = try connection.scalar("SELECT ZTIMESTAMP FROM ATRANSACTION")
        if case .real(let seconds)? = timestamp {
            #expect(abs(Date(timeIntervalSinceReferenceDate: seconds).timeIntervalSinceNow) < 600)
        } else {
            Issue.record("ZTIMESTAMP is \(String(describing: timestamp))")
        }
    }

    @Test func reopeningAStoreKeepsItsHistoryIndexesAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("h.sqlite")
        do {
            let coordinator = try Self.coordinator(url)
            let context = Self.context(coordinator)
            try context.performAndWait {
                try context.insertNewObject(forEntityName: "Person")["lastName"] = "X"
                try context.save()
            }
        }
        func indexes() throws -> [SQLiteValue] {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            return try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN "
                + "('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name").map { $0[0] }
        }
        let before = try indexes()
        #expect(before.count == 8, "\(before)")
        let pages = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber
        // Opened again (with and without the option): the model's index check leaves history indexes alone.
        _ = try Self.coordinator(url, watching: true)
        let plain = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try plain.addPersistentStore(ofType: .sqlite, at: url)
        #expect(try indexes() == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber == pages,
            "opening wrote to the store")
        // Without the option, a store that has history tables keeps recording.
        let context = Self.context(plain, author: "plain")
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person")["lastName"] = "Y"
            try context.save()
        }
        #expect(try plain.fetchHistory(after: nil).last?.author == "plain")
    }

    @Test func batchRequestsAreRecordedAndSentAsEvents() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.coordinator(directory.file("h.sqlite"))
        let events = Locked<[StoreCommitEvent]>([])
        let token = coordinator.addCommitObserver { event in events.withLock { $0.append(event) } }
        defer { token.cancel() }
        var insert = BatchInsertRequest(entityName: "Person",
            objects: (0..<4).map { ["lastName": .string("B\($0)"), "email": .string("b\($0)@x"), "age": .integer(Int64($0))] })
        insert.resultType = .objectIDs
        let inserted = try coordinator.execute(insert)
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Person", predicate: try FetchPredicate(format: "age >= 2"),
            propertiesToUpdate: ["age": .integer(99)]))
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "age == 0")))
        let history = try coordinator.fetchHistory(after: nil)
        try #require(history.count == 3)
        #expect(Set(history[0].changes.map(\.changedObjectID)) == Set(inserted.objectIDs ?? []))
        #expect(history[1].changes.count == 2 && history[1].changes.allSatisfy { $0.updatedProperties == ["age"] })
        #expect(history[2].changes.map(\.changeType) == [.delete])
        #expect(history[2].changes.first?.tombstone == ["email": .string("b0@x")])
        let seen = events.withLock { $0 }
        #expect(seen.map(\.kind) == [.batchRequest, .batchRequest, .batchRequest])
        #expect(seen.allSatisfy { $0.origin == .thisCoordinator })
        #expect(seen.map(\.historyToken) == history.map(\.token))
        #expect(seen[1].updatedObjectIDs.values.allSatisfy { $0 == ["age"] })
    }

    @Test func purgingByTokenAndDateAndExpiredTokens() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.coordinator(directory.file("h.sqlite"))
        let context = Self.context(coordinator)
        try context.performAndWait {
            for index in 0..<4 {
                try context.insertNewObject(forEntityName: "Person")["lastName"] = "P\(index)"
                try context.save()
            }
        }
        let history = try coordinator.fetchHistory(after: nil)
        try #require(history.count == 4)
        #expect(try coordinator.deleteHistory(before: history[1].token) == 2)
        #expect(try coordinator.fetchHistory(after: nil).map(\.transactionNumber) == history[2...].map(\.transactionNumber))
        // After the token of a purged transaction, transactions are missing: that is an error, not an answer.
        #expect(throws: ObjectGraphError.self) { try coordinator.fetchHistory(after: history[0].token) }
        // The last processed token still works.
        #expect(try coordinator.fetchHistory(after: history[1].token).count == 2)
        #expect(try coordinator.deleteHistory(before: Date().addingTimeInterval(60)) == 2)
        #expect(try coordinator.fetchHistory(after: nil).isEmpty)
        // Numbers are never reused after a purge.
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person")["lastName"] = "later"
            try context.save()
        }
        #expect(try coordinator.fetchHistory(after: history[3].token).map(\.transactionNumber) == [history[3].transactionNumber + 1])
    }

    @Test func aFailedSaveRecordsNothing() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.coordinator(directory.file("h.sqlite"))
        let context = Self.context(coordinator)
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "kept"
            try context.save()
            // A conflict: another context changes the row first.
            let other = Self.context(coordinator)
            try other.performAndWait {
                let copy = try other.existingObject(with: person.objectID)
                copy["age"] = Int64(1)
                try other.save()
            }
            person["age"] = Int64(2)
            #expect(throws: ObjectGraphError.self) { try context.save() }
        }
        #expect(try coordinator.fetchHistory(after: nil).count == 2)
    }

    @Test func historyTokensRoundTripThroughCodable() throws {
        let token = HistoryToken(transactionNumbers: ["A": 3, "B": 9])
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)
        #expect(HistoryToken(storeIdentifier: "A", transactionNumber: 2) < token)
        let crossed = HistoryToken(transactionNumbers: ["A": 4, "B": 1])
        #expect(!(crossed < token) && !(token < crossed))
        #expect(token.merged(with: crossed) == HistoryToken(transactionNumbers: ["A": 4, "B": 9]))
    }
}

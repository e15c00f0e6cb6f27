import Dispatch
import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Faults at the server: nobody listening at launch, and a statement timeout in the middle of a save.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresFaultTests {
    @Test func aServerThatIsDownAtLaunchIsAClearError() throws {
        PostgresStore.register()
        // Port 1 on loopback: nothing listens there.
        let url = try #require(URL(string: "postgresql://someone:secret@127.0.0.1:1/nothing"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostgresStoreTests.valuesModel())
        do throws(ObjectGraphError) {
            try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url,
                options: PersistentStoreOptions())
            Issue.record("a store was added with no server")
        } catch {
            guard case .storeUnavailable(let store, let reason) = error else {
                Issue.record("expected storeUnavailable, got \(error)")
                return
            }
            #expect(store == "postgresql://someone:***@127.0.0.1:1/nothing")
            #expect(!"\(error)".contains("secret"))
            #expect(reason.contains("refused"))
            // libpq's message ends in a question; the sentence around it reads as one.
            #expect(!"\(error)".contains("?.") && "\(error)".contains(" Nothing of the failed operation was kept"),
                "\(error)")
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aMissingDatabaseOrABadOptionIsNotReportedAsPassing() throws {
        let base = try #require(PostgresTestDatabase.baseURI.flatMap(URLComponents.init(string:)))
        var missing = base
        missing.path = "/og_no_such_database"
        var badOption = base
        badOption.queryItems = [URLQueryItem(name: "sslmode", value: "bogus")]
        let model = try PostgresStoreTests.valuesModel()
        for (components, expected) in [(missing, "storeFailed"), (badOption, "invalidStoreOption")] {
            let url = try #require(components.url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            do throws(ObjectGraphError) {
                try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: url,
                    options: PersistentStoreOptions())
                Issue.record("\(url) opened")
            } catch {
                switch (error, expected) {
                case (.storeFailed(_, let reason), "storeFailed"):
                    #expect(reason.contains("does not exist"), "\(reason)")
                case (.invalidStoreOption(_, let reason), "invalidStoreOption"):
                    #expect(reason.contains("sslmode"), "\(reason)")
                default:
                    Issue.record("expected \(expected), got \(error)")
                }
                #expect(!"\(error)".contains("try again"), "\(error)")
            }
        }
    }

    @Test func aStatementTimeoutLeavesNoTransactionOpen() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresStoreTests.valuesModel()
        let first = PostgresStoreTests.context(try database.coordinator(model: model))
        let id = try first.performAndWait {
            let item = try first.insertNewObject(forEntityName: "Item")
            item.setValue(.string("a"), forKey: "text")
            try first.save()
            return item.objectID
        }
        // A second client whose statements may run 300 ms at most.
        var components = try #require(URLComponents(url: database.url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "options", value: "-c statement_timeout=300")]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: components.url,
            options: PersistentStoreOptions())
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let second = PostgresStoreTests.context(coordinator)
        try second.performAndWait { try second.existingObject(with: id).setValue(.string("b"), forKey: "text") }
        // Another session holds the row, so the second client's UPDATE waits until its timeout.
        let holder = try database.connection()
        try holder.execute("BEGIN")
        try holder.execute(#"SELECT * FROM "ZITEM" FOR UPDATE"#)
        let failed: ObjectGraphError? = second.performAndWait {
            do throws(ObjectGraphError) {
                try second.save()
                return nil
            } catch {
                return error
            }
        }
        guard case .storeFailed(_, let reason)? = failed else {
            Issue.record("expected storeFailed, got \(String(describing: failed))")
            return
        }
        #expect(reason.contains("statement timeout"))
        let state = try database.connection().execute("SELECT state FROM pg_stat_activity WHERE pid = $1::int",
            [String(store.writerBackendPID)])
        #expect(state.first?.first == "idle")
        try holder.execute("COMMIT")
        #expect(second.performAndWait { second.hasChanges })
        try second.performAndWait { try second.save() }
        let stored = try database.connection().execute(#"SELECT "ZTEXT", "Z_OPT" FROM "ZITEM""#)
        #expect(stored.map { $0.compactMap { $0 } } == [["b", "2"]])
    }
}

/// Uniqueness constraints hold across clients: the server has a unique index per constraint, whose refusal is a
/// typed error (``ObjectGraphError/uniqueConstraintViolated(store:reason:)``) a context resolves by its merge policy.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresUniquenessTests {
    @Test func twoClientsCannotBothSaveTheSameUniqueValue() throws {
        let database = try PostgresTestDatabase()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                uniquenessConstraints: [["name"]]),
        ])
        let first = PostgresStoreTests.context(try database.coordinator(model: model))
        let secondCoordinator = try database.coordinator(model: model)
        try first.performAndWait {
            try first.insertNewObject(forEntityName: "Tag").setValue(.string("swift"), forKey: "name")
            try first.save()
        }
        // A save that races the first one (its client had not seen it yet) meets the server's unique index.
        let store = try #require(secondCoordinator.persistentStores.first?.incrementalStore)
        let tag = try #require(model.entity(named: "Tag"))
        var request = StoreSaveRequest()
        request.inserts = [StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: "Tag"), entity: tag,
            values: [.string("swift")])]
        do throws(ObjectGraphError) {
            _ = try store.save(request)
            Issue.record("a second row with the same unique value was saved")
        } catch {
            guard case .uniqueConstraintViolated(_, let reason) = error else {
                Issue.record("expected uniqueConstraintViolated, got \(error)")
                return
            }
            #expect(reason.contains("unique"))
        }
        // A context of that client sees the first row (its fetch catches up) and refuses the duplicate itself.
        let second = PostgresStoreTests.context(secondCoordinator)
        #expect(throws: ObjectGraphError.self) {
            try second.performAndWait {
                try second.insertNewObject(forEntityName: "Tag").setValue(.string("swift"), forKey: "name")
                try second.save()
            }
        }
        #expect(try database.connection().execute(#"SELECT count(*) FROM "ZTAG""#).first?.first == "1")
    }
}

/// Every connection to the database dropped at once (what a server restart does to its clients).
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresDroppedConnectionsTests {
    @Test func clientsReconnectAndTheListenerCatchesUp() throws {
        let database = try PostgresTestDatabase()
        let model = try PostgresStoreTests.valuesModel()
        let watching = try database.coordinator(model: model, remoteChanges: true)
        let arrived = DispatchSemaphore(value: 0)
        let inserted = Locked<Set<ManagedObjectID>>([])
        let token = watching.addCommitObserver { event in
            guard event.origin.isRemote else { return }
            inserted.withLock { $0.formUnion(event.insertedObjectIDs) }
            arrived.signal()
        }
        defer { token.cancel() }
        let writer = PostgresStoreTests.context(try database.coordinator(model: model))

        let admin = try database.connection()
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            + "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        let item = try writer.performAndWait { try writer.insertNewObject(forEntityName: "Item") }
        let failed: ObjectGraphError? = writer.performAndWait {
            do throws(ObjectGraphError) {
                try writer.save()
                return nil
            } catch {
                return error
            }
        }
        guard case .storeUnavailable? = failed else {
            Issue.record("expected storeUnavailable, got \(String(describing: failed))")
            return
        }
        let id = try writer.performAndWait {
            try writer.save()
            return item.objectID
        }
        // The watcher's listener lost its connection too: it reconnects and reads the commit from Z_CHANGES.
        #expect(arrived.wait(timeout: .now() + 30) == .success)
        #expect(inserted.withLock { $0 } == [id])
        let reader = PostgresStoreTests.context(watching)
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Item")) } == 1)
    }
}

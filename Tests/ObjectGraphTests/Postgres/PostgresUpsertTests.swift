import Dispatch
import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Uniqueness constraints on a PostgreSQL store resolved by the saving context's merge policy exactly as on an
/// SQLite store — an object-trump save merges into the row another client committed (an upsert), `.error` throws
/// ``ObjectGraphError/constraintConflicts(_:)`` — also when the other client commits after the context checked
/// (the server's unique index refuses the save, which resolves again). Batch inserts fail alike on both stores.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresUpsertTests {
    let directory = TemporaryDirectory()

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Tag", attributes: [
                AttributeDescription(name: "name", type: .string), AttributeDescription(name: "count", type: .integer64),
                AttributeDescription(name: "note", type: .string),
            ], uniquenessConstraints: [["name"]]),
        ])
    }

    /// What a save or batch did: the error's kind (nil: none), and the rows afterwards (name, count, note).
    struct Outcome: Equatable, CustomStringConvertible {
        var error: String?
        var rows: [String]
        var description: String { "error: \(error ?? "none"), rows: \(rows)" }
    }

    static func kind(_ error: ObjectGraphError?) -> String? {
        switch error {
        case nil: nil
        case .constraintConflicts(let conflicts)?: "constraintConflicts(\(conflicts.map { $0.values.description }))"
        case .sqlite?, .uniqueConstraintViolated?: "uniqueIndex"
        case let other?: "\(other)"
        }
    }

    static func rows(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = PostgresStoreTests.context(coordinator)
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { tag in
                ["name", "count", "note"].map { "\(tag.value(forKey: $0))" }.joined(separator: " ")
            }.sorted()
        }
    }

    /// Two coordinators on one store: `first` commits Tag swift/1/a, then a context of `second` with `policy`
    /// inserts swift/2 (no note) and new/3, and saves.
    static func save(policy: MergePolicy, first: PersistentStoreCoordinator, second: PersistentStoreCoordinator) throws
        -> Outcome
    {
        let writer = PostgresStoreTests.context(first)
        try writer.performAndWait {
            let tag = try writer.insertNewObject(forEntityName: "Tag")
            tag["name"] = "swift"
            tag["count"] = Int64(1)
            tag["note"] = "a"
            try writer.save()
        }
        let context = PostgresStoreTests.context(second)
        context.mergePolicy = policy
        let error: ObjectGraphError? = context.performAndWait {
            do throws(ObjectGraphError) {
                for (name, count) in [("swift", 2), ("new", 3)] {
                    let tag = try context.insertNewObject(forEntityName: "Tag")
                    tag["name"] = name
                    tag["count"] = Int64(count)
                }
                try context.save()
                return nil
            } catch {
                return error
            }
        }
        return Outcome(error: kind(error), rows: try rows(first))
    }

    func sqliteCoordinators() throws -> (PersistentStoreCoordinator, PersistentStoreCoordinator) {
        let url = directory.file("tags-\(UUID().uuidString).sqlite")
        func open() throws -> PersistentStoreCoordinator {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: .init())
            return coordinator
        }
        return (try open(), try open())
    }

    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func aSaveMeetingAnotherClientsRowObeysTheMergePolicyAsOnSQLite(policy: MergePolicy) throws {
        let (sqliteFirst, sqliteSecond) = try sqliteCoordinators()
        let expected = try Self.save(policy: policy, first: sqliteFirst, second: sqliteSecond)
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let actual = try Self.save(policy: policy, first: try database.coordinator(model: model),
            second: try database.coordinator(model: model))
        #expect(actual == expected)
        if policy == .mergeByPropertyObjectTrump {
            #expect(actual.rows == [#"Optional("new") Optional(3) nil"#, #"Optional("swift") Optional(2) Optional("a")"#]
                || actual.rows == ["\"new\" 3 nil", "\"swift\" 2 \"a\""], "\(actual)")
        }
        if policy == .error { #expect(actual.error?.hasPrefix("constraintConflicts") == true, "\(actual)") }
    }

    /// The other client's save commits after this context checked its values: the server's unique index refuses
    /// this save, which resolves again and obeys the policy.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func anotherClientsCommitAfterTheCheckIsResolvedByThePolicy(policy: MergePolicy) throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let firstCoordinator = try database.coordinator(model: model)
        let first = PostgresStoreTests.context(firstCoordinator)
        let firstStore = try #require(firstCoordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        try first.performAndWait {
            _ = try first.insertNewObject(forEntityName: "Tag")
            try first.save()  // (connects the writer, so its backend is known)
        }
        let pid = firstStore.writerBackendPID
        // (Opened now: opening makes sure of the unique index, which would wait for the first client's save.)
        let secondCoordinator = try database.coordinator(model: model)
        let second = PostgresStoreTests.context(secondCoordinator)
        second.mergePolicy = policy
        let secondStore = try #require(secondCoordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        try second.performAndWait {
            _ = try second.count(for: FetchRequest<ManagedObject>(entityName: "Tag"))  // (connects its writer)
        }
        // (Read now: once its save is under way the store's lock is held until the save ends, which is after the
        // holder below lets go — reading it then would wait for ever.)
        let secondPID = secondStore.writerBackendPID
        // The first client's save stops just before it logs its commit (another session holds Z_CHANGES)...
        let holder = try database.connection()
        try holder.execute("BEGIN")
        try holder.execute(#"LOCK TABLE "Z_CHANGES" IN EXCLUSIVE MODE"#)
        let firstSaved = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? first.performAndWait {
                let tag = try first.insertNewObject(forEntityName: "Tag")
                tag["name"] = "swift"
                tag["count"] = Int64(1)
                tag["note"] = "a"
                try first.save()
            }
            firstSaved.signal()
        }
        try Self.waitUntilBlocked(pid: pid, on: holder)
        // ...so the second client's context finds no "swift" when it checks, and its save waits for the first's.
        let secondSaved = DispatchSemaphore(value: 0)
        let failure = Locked<ObjectGraphError?>(nil)
        DispatchQueue.global().async {
            second.performAndWait {
                do throws(ObjectGraphError) {
                    let tag = try second.insertNewObject(forEntityName: "Tag")
                    tag["name"] = "swift"
                    tag["count"] = Int64(2)
                    try second.save()
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            secondSaved.signal()
        }
        try Self.waitUntilBlocked(pid: secondPID, on: holder)
        try holder.execute("COMMIT")
        #expect(firstSaved.wait(timeout: .now() + 30) == .success)
        #expect(secondSaved.wait(timeout: .now() + 30) == .success)
        let rows = try database.connection().execute(
            #"SELECT "ZNAME", "ZCOUNT", "ZNOTE" FROM "ZTAG" WHERE "ZNAME" IS NOT NULL"#)
        let error = failure.withLock { $0 }
        if policy == .error {
            guard case .constraintConflicts(let conflicts)? = error else {
                Issue.record("expected constraintConflicts, got \(String(describing: error))")
                return
            }
            #expect(conflicts.map(\.keys) == [["name"]])
            #expect(rows.map { $0.map { $0 ?? "nil" } } == [["swift", "1", "a"]])
        } else {
            #expect(error == nil, "\(String(describing: error))")
            #expect(rows.map { $0.map { $0 ?? "nil" } } == [["swift", "2", "a"]])
        }
    }

    @Test func aBatchInsertMeetingAUniqueValueFailsAsOnSQLite() throws {
        func run(_ first: PersistentStoreCoordinator, _ second: PersistentStoreCoordinator) throws -> Outcome {
            _ = try Self.save(policy: .error, first: first, second: second)  // swift/1/a (the second save fails)
            var error: ObjectGraphError?
            do throws(ObjectGraphError) {
                _ = try second.execute(BatchInsertRequest(entityName: "Tag", objects: [
                    ["name": .string("other"), "count": .integer(4)], ["name": .string("swift"), "count": .integer(5)],
                ]))
            } catch let thrown {
                error = thrown
            }
            let unique = try second.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": .string("fine")]]))
            #expect(unique.objectIDs?.count ?? 1 == 1)
            return Outcome(error: Self.kind(error), rows: try Self.rows(first))
        }
        let (sqliteFirst, sqliteSecond) = try sqliteCoordinators()
        let expected = try run(sqliteFirst, sqliteSecond)
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let actual = try run(try database.coordinator(model: model), try database.coordinator(model: model))
        #expect(actual == expected)
        #expect(actual.error == "uniqueIndex")
    }

    /// Returns once server process `pid` waits for a lock.
    static func waitUntilBlocked(pid: Int32, on connection: PostgresConnection) throws {
        for _ in 0..<3000 {
            let rows = try connection.execute("SELECT count(*) FROM pg_locks WHERE pid = $1::int AND NOT granted",
                [String(pid)])
            if let text = rows.first?.first ?? nil, let waiting = Int(text), waiting > 0 { return }
            usleep(10_000)
        }
        Issue.record("server process \(pid) never waited for a lock")
    }
}

import Dispatch
import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Restoring a store (a backup file) into a PostgreSQL database: `migratePersistentStore` to `.postgreSQL`, and
/// `PostgresStore.restore` replacing a database's store, which connected clients notice.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresRestoreTests {
    let directory = TemporaryDirectory()

    static let entities = #"<entity name="Owner"><attribute name="name" optional="YES" attributeType="String"/>"#
        + #"<attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>"#
        + #"<relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner"/>"#
        + #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="owners"/></entity>"#
        + #"<entity name="Item"><attribute name="name" optional="YES" attributeType="String"/>"#
        + #"<relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="items"/></entity>"#
        + #"<entity name="Tag"><attribute name="name" optional="YES" attributeType="String"/>"#
        + #"<relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Owner" inverseName="tags"/></entity>"#

    func model() throws -> ManagedObjectModel {
        try ModelBundle(contentsOf: try MigrationFixtures.bundle([Self.entities], in: directory, name: "Restore"))
            .model(named: "Restore")
    }

    /// An SQLite store at `name` holding owners `names` (prefixed to every name), each with items in a random order
    /// and random tags; the first owner has a photo above the external-storage threshold, the second a small one.
    func sqliteStore(_ name: String, prefix: String, seed: UInt64) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: directory.file(name),
            options: PersistentStoreOptions())
        var random = SeededRandom(seed: seed)
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let tags = try (0..<3).map { index in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag["name"] = "\(prefix)t\(index)"
                return tag
            }
            for index in 0..<4 {
                let owner = try context.insertNewObject(forEntityName: "Owner")
                owner["name"] = "\(prefix)o\(index)"
                if index == 0 { owner["photo"] = Data((0..<200_000).map { UInt8($0 % 251) }) }
                if index == 1 { owner["photo"] = Data([1, 2, 3]) }
                let items = try (0..<Int.random(in: 0...4, using: &random)).map { item in
                    let object = try context.insertNewObject(forEntityName: "Item")
                    object["name"] = "\(prefix)i\(index).\(item)"
                    return object
                }
                owner.setRelatedObjects(items.shuffled(using: &random), forKey: "items")
                owner.setRelatedObjects(tags.filter { _ in random.chance(0.5) }, forKey: "tags")
            }
            try context.save()
        }
        let store = try #require(coordinator.persistentStores.first)
        var metadata = try coordinator.metadata(for: store)
        metadata.userInfo["origin"] = .string(prefix)
        try coordinator.setMetadata(metadata, for: store)
        return coordinator
    }

    /// Every object as a line: its key, name, photo size and relationships (ordered ones in order).
    static func graph(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = MigrationFixtures.context(coordinator)
        return try context.performAndWait {
            var lines: [String] = []
            for entity in coordinator.managedObjectModel.entities {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                    var line = "\(entity.name)/\(object.objectID.primaryKey ?? -1) \((object["name"] as String?) ?? "?")"
                    if entity.name == "Owner" {
                        let photo: Data? = object["photo"]
                        line += " photo=\(photo.map { "\($0.count):\($0.reduce(0) { (Int($1) &+ $0 &* 31) & 0xFFFF })" } ?? "-")"
                    }
                    line += object.relationshipsDescription { ($0["name"] as String?) ?? "?" }
                    lines.append(line)
                }
            }
            return lines.sorted()
        }
    }

    /// A coordinator on `database` for the test model.
    func client(_ database: PostgresTestDatabase, remoteChanges: Bool = false) throws -> PersistentStoreCoordinator {
        try database.coordinator(model: try model(), remoteChanges: remoteChanges)
    }

    @Test func aStoreFileMovesIntoAnEmptyDatabaseAndBackOutUnchanged() throws {
        let source = try sqliteStore("backup.sqlite", prefix: "", seed: 11)
        let store = try #require(source.persistentStores.first)
        let identifier = store.identifier
        let expected = try Self.graph(source)
        let database = try PostgresTestDatabase()

        let moved = try source.migratePersistentStore(store, to: database.url, type: .postgreSQL)
        #expect(moved.identifier == identifier)
        #expect(moved.type == .postgreSQL)
        #expect(try Self.graph(source) == expected)
        let other = try client(database)
        #expect(try Self.graph(other) == expected)
        let metadata = try PostgresStore.metadata(at: database.url)
        #expect(metadata.storeUUID == identifier)
        #expect(metadata.userInfo["origin"] == .string(""))
        let admin = try database.connection()
        #expect(try admin.execute(#"SELECT count(*) FROM "Z_EXTERNALDATA""#).first?[0] == "1")
        let largest = try admin.execute(#"SELECT max("Z_PK") FROM "ZITEM""#).first?[0].flatMap { $0 }.flatMap { Int64($0) }
        #expect(try admin.execute(#"SELECT "Z_MAX" FROM "Z_PRIMARYKEY" WHERE "Z_NAME" = 'Item'"#).first?[0]
            == largest.map(String.init))

        // Back out into a new file: the same graph, under the same UUID.
        let copyURL = directory.file("copy.sqlite")
        let otherStore = try #require(other.persistentStores.first)
        let copy = try other.migratePersistentStore(otherStore, to: copyURL, type: .sqlite)
        #expect(copy.identifier == identifier)
        #expect(try Self.graph(MigrationFixtures.open(copyURL, bundle: directory.file("Restore.xcdatamodeld"),
            version: "Restore")) == expected)

        // New objects get keys after the restored ones.
        let context = MigrationFixtures.context(try client(database))
        let key = try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            item["name"] = "new"
            try context.save()
            return item.objectID.primaryKey
        }
        #expect(key == largest.map { $0 + 1 })

        // A database that holds a store is refused, and left as it was.
        let second = try sqliteStore("second.sqlite", prefix: "x", seed: 12)
        let before = try Self.graph(try client(database))
        #expect {
            _ = try second.migratePersistentStore(try #require(second.persistentStores.first), to: database.url,
                type: .postgreSQL)
        } throws: { error in
            guard case .destinationExists(let path)? = error as? ObjectGraphError else { return false }
            return path == StoreURL.redacted(database.url)
        }
        #expect(try Self.graph(try client(database)) == before)
        #expect(second.persistentStores.first?.type == .sqlite)
    }

    @Test func replacingADatabaseMakesConnectedClientsReloadAndFollowTheNewStore() throws {
        let database = try PostgresTestDatabase()
        let first = try client(database, remoteChanges: true)
        let remote = RemoteCommitEvents(first)
        let context = MigrationFixtures.context(first)
        try context.performAndWait {
            for name in ["old1", "old2"] {
                let owner = try context.insertNewObject(forEntityName: "Owner")
                owner["name"] = name
            }
            try context.save()
        }
        let oldUUID = try PostgresStore.metadata(at: database.url).storeUUID
        let backup = try sqliteStore("backup.sqlite", prefix: "b", seed: 21)
        let backupStore = try #require(backup.persistentStores.first)
        let expected = try Self.graph(backup)

        #expect {
            try PostgresStore.restore(backupStore, of: backup, to: database.url, replacingExisting: false)
        } throws: { error in
            if case .destinationExists? = error as? ObjectGraphError { return true }
            return false
        }
        #expect(try PostgresStore.metadata(at: database.url).storeUUID == oldUUID)

        let metadata = try PostgresStore.restore(backupStore, of: backup, to: database.url, replacingExisting: true)
        #expect(metadata.storeUUID == backupStore.identifier)
        #expect(metadata.storeUUID != oldUUID)
        // The connected client hears of it (the contents replaced) and holds the backup's rows.
        #expect(remote.next())
        let replacement = try #require(remote.events.first)
        #expect(replacement.kind == .contentsReplaced)
        #expect(try Self.graph(first) == expected)

        // It follows the restored store from now on: a new client's commit reaches it.
        let second = try client(database)
        let secondContext = MigrationFixtures.context(second)
        try secondContext.performAndWait {
            let owner = try secondContext.insertNewObject(forEntityName: "Owner")
            owner["name"] = "after"
            try secondContext.save()
        }
        #expect(remote.next())
        #expect(remote.events.last?.insertedObjectIDs.count == 1)
        // And its own saves land in the restored store.
        try context.performAndWait {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner["name"] = "fromFirst"
            try context.save()
        }
        #expect(try Self.graph(try client(database)).contains { $0.contains(" fromFirst ") })
    }

    /// A restore can put other values at a key with the same version (or an older version), which a commit of
    /// changed objects would not refresh: connected clients hear of it as the contents replaced, and a context
    /// that merges automatically shows the restored values.
    @Test func aReplacementIsReportedAsContentsReplacedAndMergingContextsShowIt() throws {
        let database = try PostgresTestDatabase()
        let first = try client(database, remoteChanges: true)
        let viewer = MigrationFixtures.context(first)
        viewer.automaticallyMergesChangesFromParent = true
        let owner = try viewer.performAndWait {
            let owner = try viewer.insertNewObject(forEntityName: "Owner")
            owner["name"] = "old"
            try viewer.save()
            return owner
        }
        // Registered after the viewer's, so the viewer's merge is queued before the test wakes.
        let remote = RemoteCommitEvents(first)
        let backup = try sqliteStore("backup.sqlite", prefix: "b", seed: 23)
        let backupStore = try #require(backup.persistentStores.first)
        _ = try PostgresStore.restore(backupStore, of: backup, to: database.url, replacingExisting: true)
        #expect(remote.next())
        #expect(remote.events.map(\.kind) == [.contentsReplaced])
        while viewer.hasQueuedMerges { viewer.performAndWait {} }
        // Owner 1 is the backup's first owner now, at the same key and version as "old" was.
        let name: String? = viewer.performAndWait { owner["name"] }
        #expect(name == "bo0")
    }

    @Test func aSaveMadeBeforeAClientReadTheReplacementIsRefused() throws {
        let database = try PostgresTestDatabase()
        let first = try client(database)
        let store = try #require(first.persistentStores.first?.incrementalStore as? PostgresStore)
        let owner = try #require(first.managedObjectModel.entity(named: "Owner"))
        let backup = try sqliteStore("backup.sqlite", prefix: "b", seed: 41)
        let backupStore = try #require(backup.persistentStores.first)
        // Holding the client's lock keeps its listener from reading the restore: the save below was made before.
        let refusal: ObjectGraphError? = store.lock.withLock {
            do {
                try PostgresStore.restore(backupStore, of: backup, to: database.url, replacingExisting: true)
                var request = StoreSaveRequest()
                request.inserts = [StoreSaveRequest.Insert(temporaryID: .makeTemporary(entityName: "Owner"), entity: owner,
                    values: owner.attributes.map { $0.name == "name" ? .string("stale") : .null })]
                _ = try store.transact(request, lists: nil)
                return nil
            } catch {
                return error as? ObjectGraphError
            }
        }
        guard case .storeFailed(_, let reason)? = refusal else {
            Issue.record("expected the save to be refused, got \(String(describing: refusal))")
            return
        }
        #expect(reason.contains("restore"))
        // The client has read the restored contents, and saves again.
        #expect(try Self.graph(first) == Self.graph(backup))
        let context = MigrationFixtures.context(first)
        try context.performAndWait {
            let object = try context.insertNewObject(forEntityName: "Owner")
            object["name"] = "fresh"
            try context.save()
        }
        #expect(try Self.graph(try client(database)).contains { $0.contains(" fresh ") })
        #expect(try !Self.graph(try client(database)).contains { $0.contains(" stale ") })
    }

    @Test func aReplacementThatFailsLeavesTheDatabaseAsItWas() throws {
        let database = try PostgresTestDatabase()
        let first = try client(database)
        let context = MigrationFixtures.context(first)
        try context.performAndWait {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner["name"] = "kept"
            try context.save()
        }
        let admin = try database.connection()
        // The last statement of the restore (clearing the change log) fails.
        try admin.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            + "RAISE EXCEPTION 'injected failure'; END $$")
        try admin.execute(#"CREATE TRIGGER refuse BEFORE DELETE ON "Z_CHANGES" FOR EACH STATEMENT EXECUTE FUNCTION refuse()"#)
        let snapshot = [
            #"SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2"#,
            #"SELECT * FROM "ZOWNER" ORDER BY "Z_PK""#,
            #"SELECT "Z_UUID" FROM "Z_METADATA""#,
            #"SELECT * FROM "Z_PRIMARYKEY" ORDER BY 1"#,
        ]
        let before = try snapshot.map { try admin.execute($0) }
        let graph = try Self.graph(first)
        let backup = try sqliteStore("backup.sqlite", prefix: "b", seed: 31)
        #expect {
            try PostgresStore.restore(try #require(backup.persistentStores.first), of: backup, to: database.url,
                replacingExisting: true)
        } throws: { error in
            guard case .storeFailed(_, let reason)? = error as? ObjectGraphError else { return false }
            return reason.contains("injected failure")
        }
        #expect(try snapshot.map { try admin.execute($0) } == before)
        #expect(try Self.graph(first) == graph)
        #expect(try Self.graph(try client(database)) == graph)
    }
}

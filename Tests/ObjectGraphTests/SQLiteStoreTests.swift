import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

@Suite struct SQLiteStoreTests {
    @Test func storeUsesCoreDataTableLayout() throws {
        let stack = try TestStack()
        let connection = try SQLiteConnection(path: stack.storeURL.path, mode: .readOnly)
        #expect(try connection.tableExists("Z_PRIMARYKEY"))
        #expect(try connection.tableExists("Z_METADATA"))
        #expect(try connection.tableExists("Z_MODELCACHE"))
        let columns = try connection.columnNames(ofTable: "ZPERSON")
        #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZAGE", "ZCREATEDAT", "ZFIRSTNAME", "ZLASTNAME", "ZEMAIL", "ZCITY"])
        // Transient attributes get no column.
        #expect(!(try connection.columnNames(ofTable: "ZITEM")).contains("ZNOTE"))
        #expect(try connection.pragma("journal_mode") == .text("wal"))
        let entities = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(entities == [[.integer(1), .text("Item"), .integer(0), .integer(0)],
                             [.integer(2), .text("Person"), .integer(0), .integer(0)]])
    }

    @Test(arguments: StoreKind.allCases) func roundTripsEveryValueThroughSaveAndFetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let created = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let context = stack.context()
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person["firstName"] = "Zoë"
            person["lastName"] = "Ærøskøbing 東京 e\u{301}"
            person["email"] = "a\u{0}b@example.org"
            person["age"] = Int64(42)
            person["createdAt"] = created
            #expect(person.objectID.isTemporaryID)
            try context.save()
            #expect(!person.objectID.isTemporaryID)
            #expect(person.objectID.primaryKey == 1)
        }
        // A fresh coordinator on the same file (or the same in-memory store) reads it back.
        let reader = stack.context()
        try reader.performAndWait {
            let people = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.count == 1)
            let person = try #require(people.first)
            #expect(person["firstName"] == "Zoë")
            let lastName: String? = person["lastName"]
            #expect(lastName.map { Array($0.utf8) } == Array("Ærøskøbing 東京 e\u{301}".utf8))
            #expect(person["email"] == "a\u{0}b@example.org")
            #expect(person["age"] == Int64(42))
            #expect(person["createdAt"] == created)
        }
        if kind != .inMemory {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
            try coordinator.addPersistentStore(ofType: kind.storeType, at: stack.storeURL)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
            #expect(count == 1)
        }
    }

    @Test func readerIsNotBlockedByAnOpenWriteTransaction() throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            for index in 0..<3 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "Person \(index)"
            }
            try context.save()
        }
        // Another connection holds a write transaction with an uncommitted insert.
        let blocker = try SQLiteConnection(path: stack.storeURL.path)
        try blocker.execute("BEGIN IMMEDIATE")
        try blocker.execute("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZLASTNAME) VALUES (99, 2, 1, 'Uncommitted')")
        let reader = stack.context(.privateQueue)
        let count = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).count
        }
        #expect(count == 3)
        try blocker.execute("ROLLBACK")
    }

    @Test func foreignAndCorruptFilesGiveTypedErrors() throws {
        let directory = TemporaryDirectory()
        let model = try TestModels.model()
        let garbage = directory.file("garbage.sqlite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: garbage)
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: .sqlite, at: garbage)
        } throws: { error in
            guard case ObjectGraphError.notAnObjectGraphStore = error else { return false }
            return true
        }
        let foreign = directory.file("foreign.sqlite")
        let connection = try SQLiteConnection(path: foreign.path)
        try connection.execute("CREATE TABLE t (x)")
        connection.close()
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: .sqlite, at: foreign)
        } throws: { error in
            guard case ObjectGraphError.notAnObjectGraphStore(_, let reason) = error else { return false }
            return reason.contains("Z_METADATA")
        }
    }

    @Test func storeWrittenForAnotherModelIsRejected() throws {
        let stack = try TestStack()
        let changed = EntityDescription(name: "Person", attributes: TestModels.person().attributes + [
            AttributeDescription(name: "nickname", type: .string)
        ])
        let model = try ManagedObjectModel(entities: [changed, TestModels.item()])
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: .sqlite, at: stack.storeURL)
        } throws: { error in
            guard case ObjectGraphError.incompatibleModel(_, let entities, _) = error else { return false }
            return entities == ["Person"]
        }
    }
}

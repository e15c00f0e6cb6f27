import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Every attribute type and entity hierarchies, stored as Core Data stores them.
@Suite struct StoreLayoutTests {
    private static let everyType = EntityDescription(name: "Sample", attributes: [
        AttributeDescription(name: "i16", type: .integer16), AttributeDescription(name: "i32", type: .integer32),
        AttributeDescription(name: "i64", type: .integer64), AttributeDescription(name: "decimal", type: .decimal),
        AttributeDescription(name: "double", type: .double), AttributeDescription(name: "float", type: .float),
        AttributeDescription(name: "string", type: .string), AttributeDescription(name: "flag", type: .boolean),
        AttributeDescription(name: "date", type: .date), AttributeDescription(name: "data", type: .binary),
        AttributeDescription(name: "uuid", type: .uuid), AttributeDescription(name: "uri", type: .uri),
        AttributeDescription(name: "thing", type: .transformable),
    ])

    /// Animal (abstract) ← Dog ← Puppy, and Animal ← Cat; Zoo is a separate root.
    private static func zooModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Zoo", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Animal", attributes: [AttributeDescription(name: "name", type: .string)],
                isAbstract: true),
            EntityDescription(name: "Dog", attributes: [AttributeDescription(name: "barks", type: .boolean)],
                parentEntity: "Animal"),
            EntityDescription(name: "Cat", attributes: [AttributeDescription(name: "lives", type: .integer16)],
                parentEntity: "Animal"),
            EntityDescription(name: "Puppy", attributes: [AttributeDescription(name: "age", type: .integer16)],
                parentEntity: "Dog"),
        ])
    }

    @Test func everyAttributeTypeIsStoredAsCoreDataStoresIt() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("types.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Self.everyType]))
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let uuid = try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF"))
        let date = Date(timeIntervalSinceReferenceDate: 86_400.25)
        let values: [String: AttributeValue] = [
            "i16": .integer(-7), "i32": .integer(70_000), "i64": .integer(Int64.max), "decimal": .decimal(Decimal(string: "19.99") ?? 0),
            "double": .double(2.5), "float": .double(0.5), "string": .string("Zoë"), "flag": .boolean(true),
            "date": .date(date), "data": .binary(Data([0, 1, 2])), "uuid": .uuid(uuid),
            "uri": .uri(URL(string: "https://example.org/a?b=c") ?? URL(fileURLWithPath: "/")), "thing": .binary(Data([9])),
        ]
        try context.performAndWait {
            let sample = try context.insertNewObject(forEntityName: "Sample")
            for (key, value) in values { sample.setValue(value, forKey: key) }
            try context.save()
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        let ddl = try connection.scalar("SELECT sql FROM sqlite_master WHERE name = 'ZSAMPLE'")
        #expect(ddl == .text("CREATE TABLE ZSAMPLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
            + "ZI16 INTEGER, ZI32 INTEGER, ZI64 INTEGER, ZFLAG INTEGER, ZDECIMAL DECIMAL, ZDOUBLE FLOAT, ZFLOAT FLOAT, "
            + "ZDATE TIMESTAMP, ZSTRING VARCHAR, ZURI VARCHAR, ZDATA BLOB, ZUUID BLOB, ZTHING BLOB )"))
        let row = try #require(try connection.rows(
            "SELECT ZFLAG, typeof(ZDECIMAL), ZDECIMAL, ZDATE, ZUUID, ZURI, Z_OPT, Z_ENT FROM ZSAMPLE").first)
        #expect(row[0] == .integer(1))
        #expect(row[1] == .text("real") && row[2] == .real(19.99))
        #expect(row[3] == .real(86_400.25), "dates are seconds since 2001-01-01")
        #expect(row[4] == .blob([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]))
        #expect(row[5] == .text("https://example.org/a?b=c"))
        #expect(row[6] == .integer(1) && row[7] == .integer(1))
        // And everything reads back as it was written.
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let sample = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Sample")).first)
            for (key, value) in values {
                #expect(sample.value(forKey: key) == value, "\(key)")
            }
        }
    }

    @Test func hierarchiesShareTheRootTableAndAreNumberedPreOrder() throws {
        let model = try Self.zooModel()
        #expect(["Animal", "Cat", "Dog", "Puppy", "Zoo"].map { model.entityNumber(of: model.entity(named: $0)!) } == [1, 2, 3, 4, 5])
        #expect(model.entity(named: "Puppy")?.attributes.map(\.name) == ["name", "barks", "age"])
        let directory = TemporaryDirectory()
        let url = directory.file("zoo.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            #expect(throws: ObjectGraphError.self) { try context.insertNewObject(forEntityName: "Animal") }
            for (entity, name) in [("Dog", "Rex"), ("Cat", "Tom"), ("Puppy", "Bit")] {
                try context.insertNewObject(forEntityName: entity)["name"] = name
            }
            try context.save()
            var animals = FetchRequest<ManagedObject>(entityName: "Animal", sortCriteria: [SortCriterion("name")])
            #expect(try context.fetch(animals).map { $0.entity.name } == ["Puppy", "Dog", "Cat"])
            var dogs = FetchRequest<ManagedObject>(entityName: "Dog")
            #expect(try context.count(for: dogs) == 2)
            dogs.includesSubentities = false
            #expect(try context.fetch(dogs).compactMap { $0["name"] as String? } == ["Rex"])
            animals.predicate = try FetchPredicate(format: "name == %@", "Tom")
            #expect(try context.fetch(animals).first?.entity.name == "Cat")
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        #expect(try connection.tableExists("ZANIMAL") && !(try connection.tableExists("ZDOG")))
        #expect(try connection.columnNames(ofTable: "ZANIMAL") == ["Z_PK", "Z_ENT", "Z_OPT", "ZLIVES", "ZBARKS", "ZAGE", "ZNAME"])
        #expect(try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
            [1, "Animal", 0, 3], [2, "Cat", 1, 0], [3, "Dog", 1, 0], [4, "Puppy", 3, 0], [5, "Zoo", 0, 0],
        ])
        #expect(try connection.rows("SELECT Z_ENT FROM ZANIMAL ORDER BY Z_PK") == [[3], [2], [4]])
    }
}

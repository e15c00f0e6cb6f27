import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Attributes that allow external binary storage keep values from the store's threshold on (the SQLite store's:
/// `PersistentStoreOptions.externalBinaryDataThreshold`, 100 KiB by default) in `Z_EXTERNALDATA`, out of the
/// entity table; every client reads them back as saved.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresExternalDataTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Photo", attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "image", type: .binary, allowsExternalBinaryDataStorage: true),
                AttributeDescription(name: "thumbnail", type: .binary),
            ]),
        ])
    }

    static func bytes(_ count: Int, seed: UInt8) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed }) }

    /// (name, image, thumbnail) of every photo, read by a new client.
    static func read(_ database: PostgresTestDatabase, _ model: ManagedObjectModel) throws -> [String: [AttributeValue]] {
        let context = PostgresStoreTests.context(try database.coordinator(model: model))
        return try context.performAndWait {
            var result: [String: [AttributeValue]] = [:]
            for photo in try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")) {
                result[photo.value(forKey: "name").stringValue ?? ""] = [photo.value(forKey: "image"), photo.value(forKey: "thumbnail")]
            }
            return result
        }
    }

    @Test func largeValuesLiveOutsideTheEntityTableAndComeBackAsSaved() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let threshold = PersistentStoreOptions().externalBinaryDataThreshold
        let big = Self.bytes(threshold, seed: 1), small = Self.bytes(threshold - 1, seed: 2)
        let context = PostgresStoreTests.context(try database.coordinator(model: model))
        let (large, little) = try context.performAndWait {
            let large = try context.insertNewObject(forEntityName: "Photo")
            large.setValue(.string("large"), forKey: "name")
            large.setValue(.binary(big), forKey: "image")
            large.setValue(.binary(big), forKey: "thumbnail")  // (no external storage: stays in the table)
            let little = try context.insertNewObject(forEntityName: "Photo")
            little.setValue(.string("little"), forKey: "name")
            little.setValue(.binary(small), forKey: "image")
            try context.save()
            return (large, little)
        }
        let admin = try database.connection()
        func layout() throws -> [[String?]] {
            try admin.execute(#"SELECT "ZNAME", "ZIMAGE" IS NULL, octet_length("ZTHUMBNAIL") FROM "ZPHOTO" ORDER BY 1"#)
                + admin.execute(#"SELECT "Z_OWNER", "Z_ATTRIBUTE", octet_length("Z_BYTES")::text FROM "Z_EXTERNALDATA" ORDER BY 1"#)
        }
        let largeOwner = "Photo/\(large.objectID.primaryKey ?? 0)", littleOwner = "Photo/\(little.objectID.primaryKey ?? 0)"
        #expect(try layout() == [["large", "t", "\(threshold)"], ["little", "f", nil], [largeOwner, "image", "\(threshold)"]])
        #expect(try Self.read(database, model) == ["large": [.binary(big), .binary(big)], "little": [.binary(small), .null]])

        // Values move between the table and Z_EXTERNALDATA as they cross the threshold; deleted objects' go.
        try context.performAndWait {
            large.setValue(.binary(small), forKey: "image")
            little.setValue(.binary(big), forKey: "image")
            try context.save()
        }
        #expect(try layout() == [["large", "f", "\(threshold)"], ["little", "t", nil], [littleOwner, "image", "\(threshold)"]])
        #expect(try Self.read(database, model) == ["large": [.binary(small), .binary(big)], "little": [.binary(big), .null]])
        try context.performAndWait {
            context.delete(little)
            try context.save()
        }
        #expect(try layout() == [["large", "f", "\(threshold)"]])
    }

    @Test func theThresholdIsTheStoreOption() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = 8
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        let context = PostgresStoreTests.context(coordinator)
        try context.performAndWait {
            for (name, count) in [("seven", 7), ("eight", 8)] {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo.setValue(.string(name), forKey: "name")
                photo.setValue(.binary(Self.bytes(count, seed: 3)), forKey: "image")
            }
            try context.save()
        }
        #expect(try database.connection().execute(#"SELECT count(*) FROM "Z_EXTERNALDATA""#).first?.first == "1")
        #expect(try Self.read(database, model)["eight"] == [.binary(Self.bytes(8, seed: 3)), .null])
        options.externalBinaryDataThreshold = -1
        #expect(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: .postgreSQL,
                configurationName: nil, at: database.url, options: options)
        }
    }
}

/// A migration carries external values over a renamed entity and attribute.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresExternalDataMigrationTests {
    let directory = TemporaryDirectory()

    @Test func externalValuesFollowRenamedEntitiesAndAttributes() throws {
        let database = try PostgresTestDatabase()
        let bundle = try MigrationFixtures.bundle([
            #"<entity name="Photo"><attribute name="name" optional="YES" attributeType="String"/><attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/></entity>"#,
            #"<entity name="Picture" elementID="Photo"><attribute name="name" optional="YES" attributeType="String"/><attribute name="pixels" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" elementID="image"/></entity>"#,
        ], in: directory)
        let big = PostgresExternalDataTests.bytes(PersistentStoreOptions().externalBinaryDataThreshold + 5, seed: 9)
        let old = MigrationFixtures.context(try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test"))
        try old.performAndWait {
            let photo = try old.insertNewObject(forEntityName: "Photo")
            photo.setValue(.string("sunset"), forKey: "name")
            photo.setValue(.binary(big), forKey: "image")
            try old.save()
        }
        let new = MigrationFixtures.context(try PostgresMigrationTests.coordinator(database, bundle: bundle, version: "Test 2"))
        let pixels = try new.performAndWait {
            try new.fetch(FetchRequest<ManagedObject>(entityName: "Picture")).map { $0.value(forKey: "pixels") }
        }
        #expect(pixels == [.binary(big)])
        #expect(try database.connection().execute(#"SELECT "Z_OWNER", "Z_ATTRIBUTE" FROM "Z_EXTERNALDATA""#)
            == [["Picture/1", "pixels"]])
    }
}

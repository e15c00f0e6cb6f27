import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Every write path of a PostgreSQL store writes the folded-text column (`ZNAME$F`) of each string attribute with
/// the value: read straight from the server, it is ``StringFolding/folded(_:)`` of the value in every row (NULL for
/// NULL), for saves (inserts and updates), batch inserts and updates, and a restore into PostgreSQL.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresFoldedColumnTests {
    let directory = TemporaryDirectory()

    /// Beings (abstract, with a name) are people (a city, an age, pets) and pets (a nickname, an owner): string
    /// attributes inherited and own, in tables with a to-one column after them.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Being", attributes: [AttributeDescription(name: "name", type: .string)],
                isAbstract: true),
            EntityDescription(name: "Person", attributes: [
                AttributeDescription(name: "city", type: .string), AttributeDescription(name: "age", type: .integer64),
            ], relationships: [RelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", isToMany: true)],
                parentEntity: "Being"),
            EntityDescription(name: "Pet", attributes: [AttributeDescription(name: "nickname", type: .string)],
                relationships: [RelationshipDescription(name: "owner", destination: "Person", inverse: "pets")],
                parentEntity: "Being"),
        ])
    }

    /// Pieces of random text: accents precomposed and combining, letters folding to several (ß, Æ, the ligature
    /// ﬁ), other scripts, emoji, the empty string, and what array literals must escape.
    static let pieces = ["Zoë", "ZOE", "zoe", "Straße", "ß", "Æsir", "ÆØÅ", "ﬁnance", "Ǆemal", "e\u{301}", "\u{301}",
        "a\u{308}\u{323}", "👍🏽", "👨‍👩‍👧", "", " ", "İstanbul", "ıI", "ΣΑΣ", "東京", "Ａｂｃ", "O'Brien",
        #"back\slash "quoted""#, "{braces,comma}", "NULL", "Émile Zola", "ÅNGSTRÖM"]

    /// Random text made of 0–3 ``pieces`` (so sometimes empty), or nil (about one time in six).
    static func text(_ random: inout SeededRandom) -> String? {
        guard !random.chance(0.16) else { return nil }
        return (0..<Int.random(in: 0...3, using: &random)).map { _ in random.pick(pieces) }.joined()
    }

    static func value(_ text: String?) -> AttributeValue { text.map(AttributeValue.string) ?? .null }

    /// What ``check(_:_:)`` found: how many values it read, and how many rows' folded text was wrong (the first
    /// few of those as examples).
    struct Checked {
        var values = 0
        var wrong = 0
        var examples: [String] = []
    }

    /// Every string attribute of every concrete entity of `model`, read from the server with its folded-text column
    /// and compared with ``StringFolding/folded(_:)`` of its value.
    static func check(_ database: PostgresTestDatabase, _ model: ManagedObjectModel) throws -> Checked {
        let connection = try database.connection()
        var checked = Checked()
        for entity in model.entities where !entity.isAbstract {
            for (_, attribute) in PostgresSchema.storedAttributes(entity) {
                guard let folded = PostgresSchema.foldedColumn(attribute) else { continue }
                let column = PostgresSchema.column(attribute)
                for row in try connection.execute(
                    #"SELECT "Z_PK", \#(column), \#(folded) FROM \#(PostgresSchema.table(entity))"#)
                {
                    let value = row[1], stored = row[2]
                    if value != nil { checked.values += 1 }
                    if stored != value.map(StringFolding.folded) {
                        checked.wrong += 1
                        guard checked.examples.count < 5 else { continue }
                        checked.examples.append("\(entity.name)/\(row[0] ?? "?").\(attribute.name): \(String(reflecting: value)) "
                            + "has \(String(reflecting: stored))")
                    }
                }
            }
        }
        return checked
    }

    /// The folded text of the name the server holds for the person whose key is `key`.
    static func foldedName(_ database: PostgresTestDatabase, key: Int64?) throws -> String? {
        let key = try #require(key)
        return try #require(try database.connection().execute(#"SELECT "ZNAME$F" FROM "ZPERSON" WHERE "Z_PK" = $1"#,
            [String(key)]).first)[0]
    }

    @Test func savesWriteTheFoldedTextWithEveryInsertAndUpdate() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let context = MigrationFixtures.context(try database.coordinator(model: model))
        var random = SeededRandom(seed: 41)
        let zoe = try context.performAndWait {
            var people: [ManagedObject] = []
            for index in 0..<300 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(Self.value(Self.text(&random)), forKey: "name")
                person.setValue(Self.value(Self.text(&random)), forKey: "city")
                person.setValue(.integer(Int64(index)), forKey: "age")
                people.append(person)
                if random.chance(0.5) {
                    let pet = try context.insertNewObject(forEntityName: "Pet")
                    pet.setValue(Self.value(Self.text(&random)), forKey: "name")
                    pet.setValue(Self.value(Self.text(&random)), forKey: "nickname")
                    pet.setRelatedObject(person, forKey: "owner")
                }
            }
            people[0].setValue(.string("Zoë"), forKey: "name")
            try context.save()
            return people[0]
        }
        var checked = try Self.check(database, model)
        #expect(checked.wrong == 0, "\(checked.examples)")
        #expect(checked.values > 500)
        let zoeKey = zoe.objectID.primaryKey
        #expect(try Self.foldedName(database, key: zoeKey) == "zoe")

        // Updates: each name changed at random (to nil too), a saving more than once.
        for round in 0..<3 {
            try context.performAndWait {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Being"))
                where object !== zoe && random.chance(0.4) {
                    object.setValue(Self.value(Self.text(&random)), forKey: "name")
                    if object.entity.name == "Pet" { object.setValue(Self.value(Self.text(&random)), forKey: "nickname") }
                }
                zoe.setValue([.string("ZOE"), .string("Ærø ﬁ"), .null][round], forKey: "name")
                try context.save()
            }
            checked = try Self.check(database, model)
            #expect(checked.wrong == 0, "round \(round): \(checked.examples)")
            #expect(try Self.foldedName(database, key: zoeKey) == ["zoe", StringFolding.folded("Ærø ﬁ"), nil][round])
        }
    }

    @Test func batchInsertsAndUpdatesWriteTheFoldedText() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let coordinator = try database.coordinator(model: model)
        var random = SeededRandom(seed: 42)
        var objects: [[String: AttributeValue]] = []
        for index in 0..<400 {
            objects.append(["name": Self.value(Self.text(&random)), "city": Self.value(Self.text(&random)),
                "age": .integer(Int64(index))])
        }
        #expect(try coordinator.execute(BatchInsertRequest(entityName: "Person", objects: objects)).count == 400)
        #expect(try Self.check(database, model).wrong == 0)

        let updated = try coordinator.execute(BatchUpdateRequest(entityName: "Person",
            predicate: try FetchPredicate(format: "age >= 100"),
            propertiesToUpdate: ["city": .string("ÅLESUND ﬁord"), "name": .null]))
        #expect(updated.count == 300)
        let folded = try database.connection().execute(
            #"SELECT DISTINCT "ZCITY$F", "ZNAME$F" IS NULL FROM "ZPERSON" WHERE "ZAGE" >= 100"#)
        #expect(folded.count == 1)
        #expect(folded.first?[0] == StringFolding.folded("ÅLESUND ﬁord"))
        #expect(folded.first?[0]?.hasPrefix("alesund ") == true)
        #expect(folded.first?[1] == "t")
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "age < 50")))
        let checked = try Self.check(database, model)
        #expect(checked.wrong == 0, "\(checked.examples)")
        #expect(checked.values > 300)
    }

    @Test func aRestoreIntoPostgreSQLWritesTheFoldedText() throws {
        let model = try Self.model()
        let source = PersistentStoreCoordinator(managedObjectModel: model)
        try source.addPersistentStore(ofType: .sqlite, configurationName: nil, at: directory.file("backup.sqlite"),
            options: PersistentStoreOptions())
        let context = MigrationFixtures.context(source)
        var random = SeededRandom(seed: 43)
        try context.performAndWait {
            for _ in 0..<250 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(Self.value(Self.text(&random)), forKey: "name")
                person.setValue(Self.value(Self.text(&random)), forKey: "city")
                let pet = try context.insertNewObject(forEntityName: "Pet")
                pet.setValue(Self.value(Self.text(&random)), forKey: "nickname")
                pet.setRelatedObject(person, forKey: "owner")
            }
            try context.save()
        }
        let database = try PostgresTestDatabase()
        _ = try source.migratePersistentStore(try #require(source.persistentStores.first), to: database.url,
            type: .postgreSQL)
        let checked = try Self.check(database, model)
        #expect(checked.wrong == 0, "\(checked.examples)")
        #expect(checked.values > 350)
    }
}

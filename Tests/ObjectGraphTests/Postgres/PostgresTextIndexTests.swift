import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// A PostgreSQL store's text search indexes (`pg_trgm` GIN indexes over the folded text of the attributes the model
/// marks "Index in Spotlight"): made when a writable client opens the store, followed when the model changes which
/// attributes are indexed, and used by the server for `[cd]` text tests, whose answers stay memory's.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresTextIndexTests {
    /// `Note` (and its sub-entity `Memo`) with `title` and `body`, of which `indexed` are marked for the text index.
    static func model(indexed: Set<String>) throws -> ManagedObjectModel {
        func text(_ name: String) -> AttributeDescription {
            AttributeDescription(name: name, type: .string, isIndexedBySpotlight: indexed.contains(name))
        }
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [text("title"), text("body"), AttributeDescription(name: "rank",
                type: .integer64)]),
            EntityDescription(name: "Memo", attributes: [text("sender")], parentEntity: "Note"),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
    }

    @Test func openingMakesTheModelsIndexesAndFollowsItsChanges() throws {
        let database = try PostgresTestDatabase()
        let both = try Self.model(indexed: ["title", "body", "sender"])
        _ = try database.coordinator(model: both)
        let connection = try database.connection()
        // One index per table with indexed attributes (Memo's table has Note's attributes too); none for Tag.
        #expect(try PostgresTextIndexes.present(on: connection) == [
            "Z_Note_TEXTINDEX": [#""ZBODY$F""#, #""ZTITLE$F""#],
            "Z_Memo_TEXTINDEX": [#""ZBODY$F""#, #""ZSENDER$F""#, #""ZTITLE$F""#],
        ])
        #expect(try PostgresStore.hasTextIndexes(at: database.url, model: both))

        // Indexing is not part of the version hashes: another choice opens the same store without a migration.
        let titleOnly = try Self.model(indexed: ["title"])
        #expect(titleOnly.entityVersionHashes == both.entityVersionHashes)
        #expect(try !PostgresStore.hasTextIndexes(at: database.url, model: titleOnly))
        _ = try database.coordinator(model: titleOnly)
        #expect(try PostgresTextIndexes.present(on: connection) == [
            "Z_Note_TEXTINDEX": [#""ZTITLE$F""#], "Z_Memo_TEXTINDEX": [#""ZTITLE$F""#],
        ])
        _ = try database.coordinator(model: try Self.model(indexed: []))
        #expect(try PostgresTextIndexes.present(on: connection).isEmpty)

        // A read-only client changes nothing.
        var options = PersistentStoreOptions()
        options.isReadOnly = true
        let reading = PersistentStoreCoordinator(managedObjectModel: both)
        try reading.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        #expect(try PostgresTextIndexes.present(on: connection).isEmpty)
    }

    @Test func withoutUsableTrigramsTheStoreOpensAndScans() throws {
        // pg_trgm installed in a schema the store's tables do not see: the index cannot be made there.
        let database = try PostgresTestDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE SCHEMA elsewhere")
        try connection.execute("CREATE EXTENSION pg_trgm SCHEMA elsewhere")
        let model = try Self.model(indexed: ["title"])
        let coordinator = try database.coordinator(model: model)
        #expect(try PostgresTextIndexes.present(on: connection).isEmpty)
        #expect(try !PostgresStore.hasTextIndexes(at: database.url, model: model))
        // The store works, scanning: its tables were made in the same transaction and are there.
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Note", objects: [
            ["title": .string("Müller")], ["title": .string("Smith")],
        ]))
        let context = PostgresStoreTests.context(coordinator)
        let found = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note",
                predicate: try FetchPredicate(format: "title CONTAINS[cd] 'MUL'"))).map { $0.value(forKey: "title") }
        }
        #expect(found == [.string("Müller")])
    }

    @Test func theServerFindsCandidatesInTheIndexAndAnswersAsMemory() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model(indexed: ["title", "body"])
        let coordinator = try database.coordinator(model: model)
        let words = ["Müller", "mull", "MULLER", "Straße", "strasse", "100%", "a_b", "back\\slash", "émile", "Ob", ""]
        var random = SeededRandom(seed: 41)
        let objects: [[String: AttributeValue]] = (0..<3_000).map { rank in
            ["title": .string(random.pick(words) + " " + random.pick(words)), "body": .string(random.pick(words)),
             "rank": .integer(Int64(rank))]
        }
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Note", objects: objects))
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let entity = try #require(model.entity(named: "Note"))
        let connection = try database.connection()
        try connection.execute("ANALYZE")

        // (The index narrows patterns with a run of three letters or digits; the others it cannot, and answers stay
        // the same.)
        for (format, needle, indexed) in [("title CONTAINS[cd] %@", "mül", true), ("body BEGINSWITH[cd] %@", "STRA", true),
            ("title ENDSWITH[cd] %@", "ller", true), ("title CONTAINS[cd] %@", "0%", false),
            ("body CONTAINS[cd] %@", "k\\s", false), ("title CONTAINS[cd] %@ OR body CONTAINS[cd] %@", "emi", true)]
        {
            let arguments = Array(repeating: needle, count: format.components(separatedBy: "%@").count - 1)
            let predicate = try FetchPredicate(format: format, argumentArray: arguments)
            let request = StoreFetchRequest(entity: entity, predicate: predicate, includesSubentities: false)
            // The plan reads the index (scans and key-order index scans off: on 3,000 rows the server might prefer
            // them).
            let query = try #require(store.serverQuery(for: request, counting: false))
            try connection.execute("SET enable_seqscan = off")
            try connection.execute("SET enable_indexscan = off")
            let plan = try connection.execute("EXPLAIN " + query.sql, query.parameters).compactMap { $0.first ?? nil }
            if indexed { #expect(plan.contains { $0.contains("Z_Note_TEXTINDEX") }, "\(format) \(needle): \(plan)") }
            // The answers are memory's.
            let expected = objects.filter { object in
                let title = object["title"]?.stringValue ?? "", body = object["body"]?.stringValue ?? ""
                let folded = StringFolding.folded(needle)
                switch format {
                case "title CONTAINS[cd] %@": return StringFolding.folded(title).contains(folded)
                case "body BEGINSWITH[cd] %@": return StringFolding.folded(body).hasPrefix(folded)
                case "title ENDSWITH[cd] %@": return StringFolding.folded(title).hasSuffix(folded)
                case "body CONTAINS[cd] %@": return StringFolding.folded(body).contains(folded)
                default: return StringFolding.folded(title).contains(folded) || StringFolding.folded(body).contains(folded)
                }
            }.compactMap { $0["rank"] }
            let before = store.serverQueryTally.server
            let found = try store.fetch(request).map { $0.values[2] }
            #expect(store.serverQueryTally.server == before + 1)
            #expect(Set(found) == Set(expected), "\(format) \(needle)")
            #expect(found.count == expected.count)
        }
    }
}

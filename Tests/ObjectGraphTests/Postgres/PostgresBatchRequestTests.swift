import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Batch requests on a PostgreSQL store do what they do on the in-memory store (delete rules included), and what
/// they did is on the server: a client that opens the database afterwards reads the same graph.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresBatchRequestTests {
    /// Every person's serial with its score, company and tags (by serial), and every tag's serial and name.
    static func snapshot(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var lines: [String] = []
            func serial(_ object: ManagedObject?) -> String { object.map { "\($0.value(forKey: "serial"))" } ?? "-" }
            for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                lines.append("P\(serial(person)) \(person.value(forKey: "score")) c\(serial(person.relatedObject(forKey: "company"))) "
                    + person.relatedObjects(forKey: "tags").map(serial).sorted().joined(separator: ","))
            }
            for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) {
                lines.append("T\(serial(tag)) \(tag.value(forKey: "name")) \(tag.relatedObjects(forKey: "people").count)")
            }
            return lines.sorted()
        }
    }

    @Test func batchRequestsMatchTheInMemoryStoreAndReachTheServer() throws {
        let database = try PostgresTestDatabase()
        let model = try PredicateGraph.makeModel()
        let memory = PersistentStoreCoordinator(managedObjectModel: model)
        try memory.addPersistentStore(ofType: .inMemory)
        let server = try database.coordinator(model: model)
        for coordinator in [memory, server] {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                var random = SeededRandom(seed: 11)
                try PredicateGraph.populate(context, people: 60, companies: 6, tags: 8,
                    strings: PostgresStoreDifferentialTests.strings, random: &random)
            }
            let updated = try coordinator.execute(BatchUpdateRequest(entityName: "Person",
                predicate: try FetchPredicate(format: "age > 5"), propertiesToUpdate: ["score": .double(1.5)]))
            #expect(updated.count > 0)
            let companies = try coordinator.execute(BatchDeleteRequest(entityName: "Company",
                predicate: try FetchPredicate(format: "rating > 1")))
            #expect(companies.count > 0)
            let tags = try coordinator.execute(BatchDeleteRequest(entityName: "Tag",
                predicate: try FetchPredicate(format: "name ==[c] 'swift'")))
            #expect(tags.count > 0)
            let inserted = try coordinator.execute(BatchInsertRequest(entityName: "Tag",
                objects: [["serial": .integer(100), "name": .string("new")], ["serial": .integer(101), "name": .string("Zoë")]]))
            #expect(inserted.count == 2)
        }
        let expected = try Self.snapshot(memory)
        #expect(try Self.snapshot(server) == expected)
        // A client that starts now reads it all from the server.
        #expect(try Self.snapshot(try database.coordinator(model: model)) == expected)
    }
}

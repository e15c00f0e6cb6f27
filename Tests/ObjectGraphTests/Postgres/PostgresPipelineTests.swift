import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Saves in few round trips: libpq's pipeline mode runs a save's statements in order and stops at the first the
/// server refuses, typed as one by one; a save of any size waits for the server three times (four with updates or
/// deletes); a refused save leaves the server as it was; text arrays reach the server as written.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresPipelineTests {
    static func model() throws -> ManagedObjectModel {
        let people = RelationshipDescription(name: "people", destination: "Person", inverse: "team", isToMany: true)
        let team = RelationshipDescription(name: "team", destination: "Team", inverse: "people")
        let tags = RelationshipDescription(name: "tags", destination: "Tag", isToMany: true, isOrdered: true)
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [team, tags]),
            EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [people]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)]),
        ])
    }

    @Test func aPipelineStopsAtTheFirstRefusedStatementAndTypesItsError() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE t (k integer PRIMARY KEY)")
        let before = connection.roundTrips
        let outcome = Result { () throws(ObjectGraphError) in
            try connection.pipeline([
                .init("BEGIN"), .init("INSERT INTO t VALUES ($1)", ["1"]), .init("INSERT INTO t VALUES ($1)", ["1"]),
                .init("INSERT INTO t VALUES ($1)", ["2"]), .init("COMMIT"),
            ])
        }
        #expect(connection.roundTrips == before + 1)
        guard case .failure(.uniqueConstraintViolated) = outcome else {
            Issue.record("expected a unique violation, got \(outcome)")
            return
        }
        try connection.execute("ROLLBACK")
        #expect(try connection.execute("SELECT count(*) FROM t") == [["0"]])
        let results = try connection.pipeline([.init("INSERT INTO t VALUES ($1), ($2) RETURNING k", ["3", "4"]),
            .init("SELECT k FROM t ORDER BY k")])
        #expect(results.map(\.changed) == [2, 2])
        #expect(results.map(\.rows) == [[["3"], ["4"]], [["3"], ["4"]]])
    }

    @Test func aSaveWaitsForTheServerThreeTimesHoweverLargeAndFourWithUpdates() throws {
        let database = try PostgresTestDatabase()
        let coordinator = try database.coordinator(model: try Self.model())
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        func roundTrips(_ body: () throws -> Void) throws -> Int {
            let before = store.writer.roundTrips
            try context.performAndWait { try body() }
            return store.writer.roundTrips - before
        }
        var people: [ManagedObject] = []
        let inserting = try roundTrips {
            let team = try context.insertNewObject(forEntityName: "Team")
            let tags = try (0..<5).map { index in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(.string("tag \(index)"), forKey: "label")
                return tag
            }
            for index in 0..<3000 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string("person \"\(index)\" \\ {x}"), forKey: "name")
                person.setRelatedObject(team, forKey: "team")
                if index.isMultiple(of: 100) { person.setRelatedObjects(tags, forKey: "tags") }
                people.append(person)
            }
            try context.save()
        }
        #expect(inserting == 3)
        let updating = try roundTrips {
            people[0].setValue(.string("renamed"), forKey: "name")
            context.delete(people[1])
            try context.save()
        }
        #expect(updating == 4)
        let rows = try database.connection().execute(#"SELECT count(*), count(DISTINCT "ZNAME") FROM "ZPERSON""#)
        #expect(rows == [["2999", "2999"]])
        let log = try database.connection().execute(
            #"SELECT cardinality("Z_INSERTED"), "Z_INSERTED"[1] FROM "Z_CHANGES" ORDER BY "Z_TXID" LIMIT 1"#)
        #expect(log.first?.first == "3006")
    }

    @Test func aSaveWithAConflictLeavesItsInsertsOffTheServer() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let first = ManagedObjectContext(concurrencyType: .privateQueue)
        first.persistentStoreCoordinator = try database.coordinator(model: model)
        let second = ManagedObjectContext(concurrencyType: .privateQueue)
        second.persistentStoreCoordinator = try database.coordinator(model: model)
        let id = try first.performAndWait {
            let team = try first.insertNewObject(forEntityName: "Team")
            team.setValue(.string("original"), forKey: "name")
            try first.save()
            return team.objectID
        }
        try second.performAndWait { _ = try second.existingObject(with: id).value(forKey: "name") }
        try first.performAndWait {
            try first.existingObject(with: id).setValue(.string("first"), forKey: "name")
            try first.save()
        }
        let outcome: Result<Void, ObjectGraphError> = second.performAndWait {
            do throws(ObjectGraphError) {
                let team = try second.existingObject(with: id)
                team.setValue(.string("second"), forKey: "name")
                for index in 0..<50 {
                    let person = try second.insertNewObject(forEntityName: "Person")
                    person.setValue(.string("p\(index)"), forKey: "name")
                    person.setRelatedObject(team, forKey: "team")
                }
                try second.save()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(.mergeConflicts(let conflicts)) = outcome else {
            Issue.record("expected a merge conflict, got \(outcome)")
            return
        }
        #expect(conflicts.map(\.objectID) == [id])
        let connection = try database.connection()
        #expect(try connection.execute(#"SELECT count(*) FROM "ZPERSON""#) == [["0"]])
        #expect(try connection.execute(#"SELECT count(*) FROM "Z_CHANGES""#) == [["2"]])
        second.performAndWait { #expect(second.insertedObjects.count == 50) }
    }

    @Test func textArraysReachTheServerAsWritten() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connection()
        var random = SeededRandom(seed: 35)
        let alphabet = Array(#"ab ,{}"\\'é😀\t"#.unicodeScalars).map(String.init) + ["NULL", "\\\\", "\"\""]
        for _ in 0..<50 {
            let values = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                (0..<Int.random(in: 0...5, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "" }
                    .joined()
            }
            let rows = try connection.execute("SELECT u FROM unnest($1::text[]) WITH ORDINALITY AS x(u, n) ORDER BY n",
                [PostgresSQL.textArray(values)])
            #expect(rows.map { $0.first ?? nil } == values.map(Optional.some), "\(values)")
        }
    }
}

import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Relationship lists on the server after saves that change them a little at a time: another client reads exactly
/// the writer's relationships (sets, and orders of ordered ones), and a save that adds one member to a long list
/// leaves the list's other rows alone.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresRelationshipListTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "serial", type: .integer64)],
                relationships: [RelationshipDescription(name: "tags", destination: "Tag", inverse: "people", isToMany: true)]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "serial", type: .integer64)],
                relationships: [RelationshipDescription(name: "people", destination: "Person", inverse: "tags", isToMany: true),
                    RelationshipDescription(name: "playlist", destination: "Person", isToMany: true, isOrdered: true)]),
        ])
    }

    /// Every object's relationships as serials, by entity and serial (see `relationshipsDescription`).
    static func graph(_ context: ManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            func serial(_ object: ManagedObject) -> Int64 { object.value(forKey: "serial").int64Value ?? -1 }
            var lines: [String] = []
            for entity in ["Person", "Tag"] {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).sorted(by: { serial($0) < serial($1) }) {
                    lines.append("\(entity) \(serial(object)):" + object.relationshipsDescription { "\(serial($0))" })
                }
            }
            return lines
        }
    }

    @Test func listsChangedALittleAtATimeReadBackAsTheWriterHasThem() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let writer = PostgresStoreTests.context(try database.coordinator(model: model))
        var random = SeededRandom(seed: 0x1157)
        let (people, tags) = try writer.performAndWait {
            let people = try (0..<30).map { index in
                let person = try writer.insertNewObject(forEntityName: "Person")
                person.setValue(.integer(Int64(index)), forKey: "serial")
                return person
            }
            let tags = try (0..<5).map { index in
                let tag = try writer.insertNewObject(forEntityName: "Tag")
                tag.setValue(.integer(Int64(index)), forKey: "serial")
                return tag
            }
            try writer.save()
            return (people, tags)
        }
        var deleted: Set<Int> = []
        for round in 0..<12 {
            try writer.performAndWait {
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let personIndex = Int.random(in: 0..<people.count, using: &random)
                    guard !deleted.contains(personIndex) else { continue }
                    let (person, tag) = (people[personIndex], random.pick(tags))
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0, 1: person.addRelatedObject(tag, forKey: "tags")
                    case 2: person.removeRelatedObject(tag, forKey: "tags")
                    case 3: tag.insertRelatedObject(person, at: random.chance(0.5) ? 0 : nil, forKey: "playlist")
                    default: tag.removeRelatedObject(person, forKey: "playlist")
                    }
                }
                if round == 6, let victim = (0..<people.count).first(where: { !deleted.contains($0) }) {
                    writer.delete(people[victim])
                    deleted.insert(victim)
                }
                try writer.save()
            }
            // A client that opens now reads the lists from the server alone.
            let reader = PostgresStoreTests.context(try database.coordinator(model: model))
            #expect(try Self.graph(reader) == Self.graph(writer), "after save \(round)")
        }
    }

    @Test func addingOneMemberToALongListWritesOneRow() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.model()
        let writer = PostgresStoreTests.context(try database.coordinator(model: model))
        let tag = try writer.performAndWait {
            let tag = try writer.insertNewObject(forEntityName: "Tag")
            for index in 0..<200 {
                let person = try writer.insertNewObject(forEntityName: "Person")
                person.setValue(.integer(Int64(index)), forKey: "serial")
                person.addRelatedObject(tag, forKey: "tags")
            }
            try writer.save()
            return tag
        }
        let connection = try database.connection()
        let listKey = #"WHERE "Z_KEY" LIKE 'Tag.people#%'"#
        let rowsBefore = try connection.execute(#"SELECT ctid::text, "Z_MEMBER" FROM "Z_RELATIONSHIPLISTS" "# + listKey)
        #expect(rowsBefore.count == 200)
        try writer.performAndWait {
            let person = try writer.insertNewObject(forEntityName: "Person")
            person.setValue(.integer(200), forKey: "serial")
            person.addRelatedObject(tag, forKey: "tags")
            try writer.save()
        }
        let rowsAfter = try connection.execute(#"SELECT ctid::text, "Z_MEMBER" FROM "Z_RELATIONSHIPLISTS" "# + listKey)
        #expect(rowsAfter.count == 201)
        // The 200 rows the tag had are the same rows (a rewrite would have made new ones).
        let kept = Set(rowsBefore.map { $0[0] ?? "" }).intersection(rowsAfter.map { $0[0] ?? "" })
        #expect(kept.count == 200)
        let reader = PostgresStoreTests.context(try database.coordinator(model: model))
        #expect(try Self.graph(reader) == Self.graph(writer))
    }
}

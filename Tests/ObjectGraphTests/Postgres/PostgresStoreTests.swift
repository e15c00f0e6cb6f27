import Dispatch
import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// The PostgreSQL store behind contexts: every value type, relationships, optimistic locking, keys shared by two
/// clients, other clients' commits arriving as commit events, and a connection killed between saves.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresStoreTests {
    static func valuesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "i16", type: .integer16), AttributeDescription(name: "i64", type: .integer64),
                AttributeDescription(name: "decimal", type: .decimal), AttributeDescription(name: "double", type: .double),
                AttributeDescription(name: "text", type: .string), AttributeDescription(name: "flag", type: .boolean),
                AttributeDescription(name: "date", type: .date), AttributeDescription(name: "data", type: .binary),
                AttributeDescription(name: "uuid", type: .uuid), AttributeDescription(name: "link", type: .uri),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ]),
        ])
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func everyValueTypeComesBackAsSaved() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let samples: [[String: AttributeValue]] = [
            ["i16": .integer(-7), "i64": .integer(.max), "decimal": .decimal(Decimal(string: "12345.678901")!),
             "double": .double(0.1), "text": .string("Zoë 東京 'quoted' \"x\" \\ \u{1F44D}"), "flag": .boolean(true),
             "date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.25)), "data": .binary(Data([0, 1, 0xFF])),
             "uuid": .uuid(UUID()), "link": .uri(URL(string: "https://example.org/Zo%C3%AB")!)],
            ["i64": .integer(.min), "double": .double(-.infinity), "text": .string(""), "flag": .boolean(false),
             "data": .binary(Data())],
            [:],
        ]
        let writer = Self.context(try database.coordinator(model: model))
        try writer.performAndWait {
            for sample in samples {
                let item = try writer.insertNewObject(forEntityName: "Item")
                for (key, value) in sample { item.setValue(value, forKey: key) }
                item.setValue(.string("not stored"), forKey: "scratch")
            }
            try writer.save()
        }
        // A second client reads what the server holds.
        let reader = Self.context(try database.coordinator(model: model))
        let read: [[String: AttributeValue]] = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).map { item in
                var values: [String: AttributeValue] = [:]
                for attribute in item.entity.attributes { values[attribute.name] = item.value(forKey: attribute.name) }
                return values
            }
        }
        #expect(read.count == samples.count)
        for (sample, values) in zip(samples, read) {
            for attribute in model.entities[0].attributes where !attribute.isTransient {
                #expect(values[attribute.name] == (sample[attribute.name] ?? .null), "\(attribute.name)")
            }
            #expect(values["scratch"] == .null)
        }
    }

    @Test func relationshipsAndOrderSurviveAnotherClient() throws {
        let database = try PostgresTestDatabase()
        let model = try PredicateGraph.makeModel()
        let writer = Self.context(try database.coordinator(model: model))
        try writer.performAndWait {
            var random = SeededRandom(seed: 7)
            try PredicateGraph.populate(writer, people: 40, companies: 4, tags: 5,
                strings: PostgresStoreDifferentialTests.strings, random: &random)
        }
        func graph(_ context: ManagedObjectContext) throws -> [Int64: [String]] {
            try context.performAndWait {
                var result: [Int64: [String]] = [:]
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    guard case .integer(let serial) = person.value(forKey: "serial") else { continue }
                    func serialOf(_ object: ManagedObject?) -> String {
                        object.map { "\($0.value(forKey: "serial"))" } ?? "-"
                    }
                    result[serial] = [
                        serialOf(person.relatedObject(forKey: "company")), serialOf(person.relatedObject(forKey: "manager")),
                        person.relatedObjects(forKey: "tags").map(serialOf).sorted().joined(separator: ","),
                        person.relatedObjects(forKey: "friends").map(serialOf).sorted().joined(separator: ","),
                    ]
                }
                return result
            }
        }
        let written = try graph(writer)
        let reader = Self.context(try database.coordinator(model: model))
        #expect(written.count == 40)
        #expect(try graph(reader) == written)
        // Company.employees (one-to-many through the inverse) and Tag.people (many-to-many, the other side).
        let counts: (Int, Int) = try reader.performAndWait {
            let companies = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Company"))
            let tags = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
            return (companies.reduce(0) { $0 + $1.relatedObjects(forKey: "employees").count },
                tags.reduce(0) { $0 + $1.relatedObjects(forKey: "people").count })
        }
        let expected = written.values.reduce(into: (0, 0)) { sum, row in
            if row[0] != "-" { sum.0 += 1 }
            sum.1 += row[2].isEmpty ? 0 : row[2].split(separator: ",").count
        }
        #expect(counts.0 == expected.0)
        #expect(counts.1 == expected.1)
    }

    @Test func aSaveOverAnotherClientsChangeIsAConflict() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let first = Self.context(try database.coordinator(model: model))
        let id = try first.performAndWait {
            let item = try first.insertNewObject(forEntityName: "Item")
            item.setValue(.string("original"), forKey: "text")
            try first.save()
            return item.objectID
        }
        let second = Self.context(try database.coordinator(model: model))
        try second.performAndWait { _ = try second.existingObject(with: id).value(forKey: "text") }
        try first.performAndWait {
            try first.existingObject(with: id).setValue(.string("first"), forKey: "text")
            try first.save()
        }
        let outcome: Result<Void, ObjectGraphError> = second.performAndWait {
            do throws(ObjectGraphError) {
                try second.existingObject(with: id).setValue(.string("second"), forKey: "text")
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
        #expect(conflicts.first?.storeVersion == 2)
        let stored = try database.connection().execute(#"SELECT "ZTEXT", "Z_OPT" FROM "ZITEM""#)
        #expect(stored.map { $0.compactMap { $0 } } == [["first", "2"]])
    }

    @Test func anObjectAnotherClientJustSavedIsFoundByItsID() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let reader = Self.context(try database.coordinator(model: model))
        let writer = Self.context(try database.coordinator(model: model))
        for round in 0..<20 {
            let id = try writer.performAndWait {
                let item = try writer.insertNewObject(forEntityName: "Item")
                item.setValue(.string("saved \(round)"), forKey: "text")
                try writer.save()
                return item.objectID
            }
            // At once, before the commit's notification can have reached the reader's replica.
            let text = try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "text") }
            #expect(text == .string("saved \(round)"))
        }
    }

    @Test func aRefreshAfterAFetchShowsAnotherClientsChange() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let writer = Self.context(try database.coordinator(model: model))
        let reader = Self.context(try database.coordinator(model: model))
        let id = try writer.performAndWait {
            let item = try writer.insertNewObject(forEntityName: "Item")
            item.setValue(.string("one"), forKey: "text")
            try writer.save()
            return item.objectID
        }
        let item = try reader.performAndWait {
            let item = try reader.existingObject(with: id)
            #expect(item.value(forKey: "text") == .string("one"))
            return item
        }
        try writer.performAndWait {
            try writer.existingObject(with: id).setValue(.string("two"), forKey: "text")
            try writer.save()
        }
        try reader.performAndWait {
            _ = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            reader.refresh(item, mergeChanges: false)
            #expect(item.value(forKey: "text") == .string("two"))
        }
    }

    @Test func twoClientsNeverGetTheSameKey() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let coordinators = [try database.coordinator(model: model), try database.coordinator(model: model)]
        let ids = Locked<[ManagedObjectID]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { round in
            let context = Self.context(coordinators[round % 2])
            context.performAndWait {
                do throws(ObjectGraphError) {
                    var items: [ManagedObject] = []
                    for _ in 0..<25 { items.append(try context.insertNewObject(forEntityName: "Item")) }
                    // Half the rounds take keys ahead of the save, as obtainPermanentIDs does.
                    if round % 4 == 1 { try context.obtainPermanentIDs(for: items) }
                    try context.save()
                    let saved = items.map(\.objectID)
                    ids.withLock { $0 += saved }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let all = ids.withLock { $0 }
        #expect(all.count == 200)
        #expect(Set(all.compactMap(\.primaryKey)).count == 200)
        let rows = try database.connection().execute(#"SELECT count(*) FROM "ZITEM""#)
        #expect(rows.first?.first == "200")
    }

    @Test func anotherClientsCommitArrivesAsACommitEvent() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let watching = try database.coordinator(model: model, remoteChanges: true)
        let arrived = DispatchSemaphore(value: 0)
        let events = Locked<[StoreCommitEvent]>([])
        let token = watching.addCommitObserver { event in
            guard event.origin.isRemote else { return }
            events.withLock { $0.append(event) }
            arrived.signal()
        }
        defer { token.cancel() }
        let other = Self.context(try database.coordinator(model: model))
        let inserted = try other.performAndWait {
            let item = try other.insertNewObject(forEntityName: "Item")
            item.setValue(.string("from afar"), forKey: "text")
            try other.save()
            return item.objectID
        }
        // (A generous bound, so that a lost notification fails the test instead of hanging it.)
        #expect(arrived.wait(timeout: .now() + 30) == .success)
        let event = try #require(events.withLock { $0.first })
        #expect(event.insertedObjectIDs == [inserted])
        let reader = Self.context(watching)
        let text = try reader.performAndWait { try reader.existingObject(with: inserted).value(forKey: "text") }
        #expect(text == .string("from afar"))
    }

    @Test func aFetchSeesEveryCommitMadeBeforeIt() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        // A client that does not ask for remote-change notifications still reads what others committed.
        let reader = Self.context(try database.coordinator(model: model))
        let writer = Self.context(try database.coordinator(model: model))
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        #expect(try reader.performAndWait { try reader.count(for: request) } == 0)
        for round in 1...3 {
            try writer.performAndWait {
                _ = try writer.insertNewObject(forEntityName: "Item")
                try writer.save()
            }
            #expect(try reader.performAndWait { try reader.count(for: request) } == round)
            #expect(try reader.performAndWait { try reader.fetch(request).count } == round)
        }
    }

    /// A section cache cannot tell whether a server's contents changed (other machines write without touching
    /// any file here), so a controller on a PostgreSQL store never takes its results from one: a new launch
    /// after another client's commit shows that commit.
    @Test func aControllerWithACacheNameAlwaysReadsTheServer() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let directory = TemporaryDirectory()
        let request = FetchRequest<ManagedObject>(entityName: "Item", sortCriteria: [SortCriterion("text")])
        func launch() throws -> (count: Int, fromCache: Bool) {
            let context = Self.context(try database.coordinator(model: model))
            return try context.performAndWait {
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                    sectionNameKeyPath: nil, cacheName: "items")
                controller.cacheDirectory = directory.url
                try controller.performFetch()
                controller.writeCache()
                return (controller.numberOfFetchedObjects, controller.resultsCameFromCache)
            }
        }
        let writer = Self.context(try database.coordinator(model: model))
        try writer.performAndWait {
            _ = try writer.insertNewObject(forEntityName: "Item")
            try writer.save()
        }
        #expect(try launch() == (1, false))
        try writer.performAndWait {
            _ = try writer.insertNewObject(forEntityName: "Item")
            try writer.save()
        }
        let second = try launch()
        #expect(second.count == 2, "another client's commit shows at the next launch")
        #expect(!second.fromCache)
    }

    @Test func aSaveOnAKilledConnectionFailsThenTheNextOneSucceeds() throws {
        let database = try PostgresTestDatabase()
        let model = try Self.valuesModel()
        let coordinator = try database.coordinator(model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let context = Self.context(coordinator)
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Item")
            try context.save()
        }
        let admin = try database.connection()
        try admin.execute("SELECT pg_terminate_backend($1::int)", [String(store.writerBackendPID)])
        let failed: ObjectGraphError? = context.performAndWait {
            do throws(ObjectGraphError) {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue(.string("kept"), forKey: "text")
                try context.save()
                return nil
            } catch {
                return error
            }
        }
        guard case .storeUnavailable? = failed else {
            Issue.record("expected storeUnavailable, got \(String(describing: failed))")
            return
        }
        #expect(context.performAndWait { context.hasChanges })
        #expect(try admin.execute(#"SELECT count(*) FROM "ZITEM""#).first?.first == "1")
        try context.performAndWait { try context.save() }
        #expect(context.performAndWait { context.hasChanges } == false)
        #expect(try admin.execute(#"SELECT count(*) FROM "ZITEM" WHERE "ZTEXT" = 'kept'"#).first?.first == "1")
    }
}

import Foundation
import Testing
import TestSupport

@_spi(StoreImplementation) @testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Fetches the server answers (predicates and sorts compiled to PostgreSQL) against the in-memory store's answers
/// over the same random rows: the same objects in the same order, for random predicates and sort orders built from
/// what the compiler translates — ties, nils, NaN, huge integers, accents, ligatures, `ß`, empty strings, emoji,
/// `LIKE` wildcards and sub-entities included — and the server must have answered them.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresServerQueryTests {
    static func model() throws -> ManagedObjectModel {
        let owner = RelationshipDescription(name: "owner", destination: "Owner", inverse: "items")
        let items = RelationshipDescription(name: "items", destination: "Item", inverse: "owner", isToMany: true)
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Owner", attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [items]),
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "serial", type: .integer64), AttributeDescription(name: "count", type: .integer64),
                AttributeDescription(name: "score", type: .double), AttributeDescription(name: "when", type: .date),
                AttributeDescription(name: "flag", type: .boolean), AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "link", type: .uri), AttributeDescription(name: "tag", type: .uuid),
                AttributeDescription(name: "price", type: .decimal),
            ], relationships: [owner]),
            EntityDescription(name: "Special", attributes: [AttributeDescription(name: "extra", type: .string)],
                parentEntity: "Item"),
        ])
    }

    static let words = ["", "a", "A", "zoë", "ZOE", "Zoë", "Zoe\u{0308}", "straße", "STRASSE", "ﬁle", "file", "Æsir",
        "aesir", "Łódź", "lodz", "100%", "a_b", "a*b", "back\\slash", "🎉 party", "émile", "Emile", "x", "ab", "abc"]
    static let uuids = (0..<3).map { _ in UUID() }

    /// One row's values, by attribute name (the in-memory and PostgreSQL stores get the same).
    static func values(_ random: inout SeededRandom, serial: Int) -> [String: AttributeValue] {
        func maybe(_ value: AttributeValue) -> AttributeValue { random.chance(0.15) ? .null : value }
        let scores: [Double] = [0, -0.0, 1.5, -2, 3, .nan, .infinity, -.infinity, 1e300, 2.5]
        let counts: [Int64] = [0, 1, -1, 2, 3, 7, 1 << 40]
        return [
            "serial": .integer(Int64(serial)),
            "count": maybe(.integer(random.pick(counts))),
            "score": maybe(.double(random.pick(scores))),
            "when": maybe(.date(Date(timeIntervalSinceReferenceDate: Double(random.pick([0, 1, 2, 86_400, -5]))))),
            "flag": maybe(.boolean(random.chance(0.5))),
            "name": maybe(.string(random.pick(words) + (random.chance(0.3) ? random.pick(words) : ""))),
            "link": maybe(.uri(URL(string: random.pick(["https://a.example/x", "https://b.example/%C3%A9", "file:///t"]))!)),
            "tag": maybe(.uuid(random.pick(uuids))),
            "price": maybe(.decimal(Decimal(random.pick([0, 1, 2.5, -3])))),
        ]
    }

    /// The same objects in a PostgreSQL and an in-memory store.
    final class Stores: @unchecked Sendable {
        let database: PostgresTestDatabase
        let postgres: ManagedObjectContext
        let memory: ManagedObjectContext
        let store: PostgresStore

        init() throws {
            database = try PostgresTestDatabase()
            let model = try PostgresServerQueryTests.model()
            let memoryCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try memoryCoordinator.addPersistentStore(ofType: .inMemory, configurationName: nil, at: nil,
                options: PersistentStoreOptions())
            let postgresCoordinator = try database.coordinator(model: model)
            store = try #require(postgresCoordinator.persistentStores.first?.incrementalStore as? PostgresStore)
            postgres = PostgresStoreTests.context(postgresCoordinator)
            memory = PostgresStoreTests.context(memoryCoordinator)
            var random = SeededRandom(seed: 0x5E7_0E5)
            var rows: [(String, [String: AttributeValue], Int)] = []
            for serial in 0..<400 {
                rows.append((random.chance(0.25) ? "Special" : "Item", PostgresServerQueryTests.values(&random, serial: serial),
                    random.chance(0.7) ? Int.random(in: 0..<3, using: &random) : -1))
            }
            for context in [postgres, memory] {
                try context.performAndWait {
                    let owners = try (0..<3).map { index in
                        let owner = try context.insertNewObject(forEntityName: "Owner")
                        owner.setValue(index == 2 ? .null : .string(["Émile", "emile"][index]), forKey: "label")
                        return owner
                    }
                    for (entity, values, owner) in rows {
                        let item = try context.insertNewObject(forEntityName: entity)
                        for (key, value) in values { item.setValue(value, forKey: key) }
                        if owner >= 0 { item.setRelatedObject(owners[owner], forKey: "owner") }
                    }
                    try context.save()
                }
            }
        }

        /// The serials `predicate` selects in `context`, in the fetch's order.
        func serials(_ context: ManagedObjectContext, _ entity: String, _ predicate: FetchPredicate?,
            sort: [SortCriterion] = [], limit: Int = 0, offset: Int = 0) throws -> [Int64]
        {
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: entity, predicate: predicate, sortCriteria: sort)
                request.fetchLimit = limit
                request.fetchOffset = offset
                return try context.fetch(request).map { $0.value(forKey: "serial").int64Value ?? -1 }
            }
        }

        /// The labels of the owners `predicate` selects in `context`, in key order.
        func labels(_ context: ManagedObjectContext, _ predicate: FetchPredicate) throws -> [String] {
            try context.performAndWait {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner", predicate: predicate))
                    .map { $0.value(forKey: "label").stringValue ?? "nil" }
            }
        }

        func count(_ context: ManagedObjectContext, _ entity: String, _ predicate: FetchPredicate?, limit: Int = 0,
            offset: Int = 0) throws -> Int
        {
            try context.performAndWait {
                try context.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: predicate,
                    fetchLimit: limit, fetchOffset: offset))
            }
        }
    }

    static let stores = Result { try Stores() }

    /// A random predicate of the forms the compiler translates.
    static func predicate(_ random: inout SeededRandom, depth: Int = 0) -> FetchPredicate.Node {
        if depth < 2, random.chance(0.3) {
            let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in predicate(&random, depth: depth + 1) }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .and(parts)
            case 1: return .or(parts)
            default: return .not(parts[0])
            }
        }
        typealias C = FetchPredicate.Comparison
        let orders: [FetchPredicate.Operator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
            .greaterThanOrEqualTo]
        let text: [FetchPredicate.Operator] = [.beginsWith, .endsWith, .contains, .like, .equalTo, .notEqualTo, .lessThan,
            .greaterThanOrEqualTo]
        func number() -> AttributeValue {
            random.pick([.integer(random.pick([0, 1, 2, 3, -1, 1 << 40])), .double(random.pick([0, 1.5, 2, -0.5,
                .infinity, 3])), .boolean(random.chance(0.5)), .null, .string("1")])
        }
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1:
            let key = random.pick(["count", "score", "when", "flag"])
            let value = key == "when" && random.chance(0.5)
                ? AttributeValue.date(Date(timeIntervalSinceReferenceDate: random.pick([0, 1, 86_400]))) : number()
            return .comparison(C(.key(key), random.pick(orders), .value(value)))
        case 2:
            return .comparison(C(.value(number()), random.pick(orders), .key(random.pick(["count", "score"]))))
        case 3, 4, 5:
            var pattern = random.pick(words)
            if random.chance(0.3) { pattern = random.pick(["*", "?", ""]) + pattern + random.pick(["*", "?", "", "\\"]) }
            let key = random.pick(["name", "name", "link", "owner.label"])
            // ([cd] on URLs has no folded column: left to memory, so not generated here.)
            let options: FetchPredicate.ComparisonOptions = key == "link" ? [] : random.pick([[],
                [.caseInsensitive, .diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive, .normalized]])
            let value: AttributeValue = random.chance(0.05) ? .null : .string(pattern)
            return .comparison(C(.key(key), random.pick(text), .value(value), options: options))
        case 6:
            let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                FetchPredicate.Operand.value(random.chance(0.5) ? .string(random.pick(words)) : number())
            }
            return .comparison(C(.key(random.pick(["name", "count", "score"])), .in, .aggregate(list),
                options: random.chance(0.5) ? [.caseInsensitive, .diacriticInsensitive] : []))
        case 7:
            let bounds = [number(), number()].map(FetchPredicate.Operand.value)
            return .comparison(C(.key(random.pick(["count", "score"])), .between, .aggregate(bounds)))
        default:
            return random.chance(0.5)
                ? .comparison(C(.key("owner"), random.pick([.equalTo, .notEqualTo]), .value(.null)))
                : .comparison(C(.key("tag"), random.pick([.equalTo, .notEqualTo]), .value(.uuid(random.pick(uuids)))))
        }
    }

    @Test func randomPredicatesAgreeWithMemoryAndTheServerAnswersThem() throws {
        let stores = try Self.stores.get()
        var random = SeededRandom(seed: 0xF0_1DED)
        let before = stores.store.serverQueryTally
        var problems: [String] = []
        for _ in 0..<400 {
            let predicate = FetchPredicate(Self.predicate(&random))
            let entity = random.chance(0.3) ? "Special" : "Item"
            let memory = try stores.serials(stores.memory, entity, predicate)
            let server = try stores.serials(stores.postgres, entity, predicate)
            if memory != server { problems.append("\(entity) where \(predicate): memory \(memory.count), server \(server.count)") }
            let counted = try stores.count(stores.postgres, entity, predicate)
            if counted != memory.count { problems.append("count of \(entity) where \(predicate): \(counted) ≠ \(memory.count)") }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements, first: \(problems.prefix(5))")
        let after = stores.store.serverQueryTally
        #expect(after.failed == before.failed, "the server refused compiled statements")
        #expect(after.replica == before.replica, "every generated predicate has an exact translation")
        #expect(after.server - before.server >= 400)
    }

    @Test func toManyComparisonsAgreeWithMemoryAndTheServerAnswersThem() throws {
        let stores = try Self.stores.get()
        var random = SeededRandom(seed: 0x70_3A4)
        let before = stores.store.serverQueryTally
        var problems: [String] = []
        for _ in 0..<150 {
            let modifier: FetchPredicate.Modifier = random.pick([.direct, .any, .all, .none])
            let node: FetchPredicate.Node
            if random.chance(0.25) {
                let count = FetchPredicate.Operand.collectionOperation(.init(.count, of: .keyPath("items")))
                node = .comparison(.init(count, random.pick([.equalTo, .greaterThan, .lessThanOrEqualTo]),
                    .value(.integer(Int64.random(in: 0...150, using: &random)))))
            } else if random.chance(0.5) {
                node = .comparison(.init(.key("items.name"), random.pick([.equalTo, .notEqualTo, .beginsWith, .like, .lessThan]),
                    .value(random.chance(0.1) ? .null : .string(random.pick(Self.words))),
                    options: random.chance(0.5) ? [.caseInsensitive, .diacriticInsensitive] : [], modifier: modifier))
            } else {
                node = .comparison(.init(.key("items.count"), random.pick([.equalTo, .greaterThan, .lessThanOrEqualTo]),
                    .value(.integer(random.pick([0, 1, 2, 3]))), modifier: modifier))
            }
            let predicate = FetchPredicate(random.chance(0.2) ? .not(node) : node)
            let memory = try stores.labels(stores.memory, predicate)
            let server = try stores.labels(stores.postgres, predicate)
            if memory != server { problems.append("Owner where \(predicate): memory \(memory), server \(server)") }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements, first: \(problems.prefix(3))")
        let after = stores.store.serverQueryTally
        #expect(after.failed == before.failed)
        #expect(after.replica == before.replica)
        #expect(after.server - before.server == 150)
    }

    @Test func randomSortOrdersAgreeWithMemory() throws {
        let stores = try Self.stores.get()
        var random = SeededRandom(seed: 0x50_47)
        let keys: [(String, SortCriterion.Comparison)] = [("name", .caseAndDiacriticInsensitive), ("name", .binary),
            ("count", .binary), ("score", .binary), ("when", .binary), ("flag", .binary), ("link", .binary),
            ("owner.label", .caseAndDiacriticInsensitive)]
        let before = stores.store.serverQueryTally
        var problems: [String] = []
        for _ in 0..<120 {
            let sort = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                let (key, comparison) = random.pick(keys)
                return SortCriterion(key, ascending: random.chance(0.5), comparison: comparison)
            }
            let predicate = random.chance(0.5) ? FetchPredicate(Self.predicate(&random)) : nil
            let limit = random.chance(0.3) ? Int.random(in: 1...50, using: &random) : 0
            let offset = random.chance(0.3) ? Int.random(in: 0...50, using: &random) : 0
            let entity = random.chance(0.2) ? "Special" : "Item"
            // (NaN has no place in memory's order, so scores sort only without it.)
            let withoutNaN = FetchPredicate(.comparison(.init(.key("score"), .lessThan, .value(.double(.infinity)))))
            let scoped = sort.contains { $0.key == "score" } ? FetchPredicate(.and([predicate?.node ?? .truePredicate,
                withoutNaN.node])) : predicate
            let memory = try stores.serials(stores.memory, entity, scoped, sort: sort, limit: limit, offset: offset)
            let server = try stores.serials(stores.postgres, entity, scoped, sort: sort, limit: limit, offset: offset)
            if memory != server { problems.append("\(entity) sorted by \(sort) where \(scoped.map(String.init(describing:)) ?? "-")") }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements, first: \(problems.prefix(3))")
        let after = stores.store.serverQueryTally
        #expect(after.failed == before.failed)
        #expect(after.replica == before.replica)
    }

    @Test func countsWithALimitAndAnOffsetAreTheOtherStores() throws {
        let stores = try Self.stores.get()
        let entity = try #require(stores.store.model.entity(named: "Item"))
        let predicate = try FetchPredicate(format: "count >= 1")
        for (limit, offset) in [(0, 0), (10, 0), (0, 10), (10, 5), (100_000, 3)] {
            // (Asked of the store itself: contexts never send an offset with a count. The replica is memory's answer.)
            let request = StoreFetchRequest(entity: entity, predicate: predicate, fetchLimit: limit, fetchOffset: offset,
                resultShape: .count)
            let before = stores.store.serverQueryTally.server
            #expect(try stores.store.count(request) == stores.store.replicaStorage.count(request), "limit \(limit) offset \(offset)")
            #expect(stores.store.serverQueryTally.server == before + 1)
        }
    }

    @Test func untranslatablePredicatesAreAnsweredByTheReplicaWithTheSameAnswers() throws {
        let stores = try Self.stores.get()
        for format in ["name MATCHES '.*o.*'", "name CONTAINS[c] 'Z'", "ANY owner.items.name == 'x'",
            "count + 1 > 2", "SUBQUERY(owner.items, $i, $i.count > 1).@count > 0"]
        {
            let predicate = try FetchPredicate(format: format)
            let before = stores.store.serverQueryTally
            #expect(try stores.serials(stores.memory, "Item", predicate) == stores.serials(stores.postgres, "Item", predicate),
                "\(format)")
            #expect(stores.store.serverQueryTally.replica == before.replica + 1, "\(format) is left to the replica")
        }
        // A sort the server has no order for.
        let localized = [SortCriterion("name", comparison: .localized)]
        #expect(try stores.serials(stores.memory, "Item", nil, sort: localized)
            == stores.serials(stores.postgres, "Item", nil, sort: localized))
    }

    @Test func anAttributeTooLongForAFoldedColumnIsAnsweredByTheReplica() throws {
        // "Z" + 62 letters is 63 bytes, PostgreSQL's longest name: no room for "$F".
        let long = String(repeating: "n", count: 62)
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: long, type: .string),
                AttributeDescription(name: "short", type: .string)]),
        ])
        let database = try PostgresTestDatabase()
        let coordinator = try database.coordinator(model: model)
        let store = try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
        let context = PostgresStoreTests.context(coordinator)
        let names = try context.performAndWait {
            for text in ["Zoë", "zoe", "Émile"] {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue(.string(text), forKey: long)
                item.setValue(.string(text), forKey: "short")
            }
            try context.save()
            let before = store.serverQueryTally
            let found = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item",
                predicate: FetchPredicate(format: "%K ==[cd] 'zoe'", long))).compactMap { $0.value(forKey: long).stringValue }
            #expect(store.serverQueryTally.replica == before.replica + 1)
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item",
                predicate: FetchPredicate(format: "short ==[cd] 'zoe'")))
            #expect(store.serverQueryTally.server == before.server + 1)
            #expect(store.serverQueryTally.failed == before.failed)
            return found
        }
        #expect(names.sorted() == ["Zoë", "zoe"])
    }

    @Test func selfInThousandsOfObjectsIsOneArrayOnTheServer() throws {
        let stores = try Self.stores.get()
        let before = stores.store.serverQueryTally
        for context in [stores.postgres, stores.memory] {
            try context.performAndWait {
                let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                // Every other item, many times over (more parameters than PostgreSQL takes in one statement, were each
                // object a parameter), plus an object of another entity, which never matches.
                let owner = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")).first)
                let wanted = Array(repeating: all.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element.objectID),
                    count: 400).flatMap { $0 } + [owner.objectID]
                let predicate = try FetchPredicate(format: "SELF IN %@", argumentArray: [wanted])
                let found = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate))
                #expect(found.count == (all.count + 1) / 2)
            }
        }
        #expect(stores.store.serverQueryTally.server == before.server + 1)
        #expect(stores.store.serverQueryTally.failed == before.failed)
    }

    /// Comparisons whose answer is the same for every non-nil value (NaN, a value of another kind), on either side, on
    /// a decimal column (which memory compares as reals) and a real one.
    @Test func fixedAnswersAgreeWithMemoryOnEitherSide() throws {
        let stores = try Self.stores.get()
        let before = stores.store.serverQueryTally
        let operators: [FetchPredicate.Operator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
            .greaterThanOrEqualTo]
        for key in ["price", "score"] {
            for constant in [AttributeValue.double(.nan), .string("1"), .binary(Data([1]))] {
                for operation in operators {
                    for node in [FetchPredicate.Node.comparison(.init(.key(key), operation, .value(constant))),
                        .comparison(.init(.value(constant), operation, .key(key)))]
                    {
                        let predicate = FetchPredicate(node)
                        #expect(try stores.serials(stores.memory, "Item", predicate)
                            == stores.serials(stores.postgres, "Item", predicate), "\(predicate)")
                    }
                }
            }
        }
        #expect(stores.store.serverQueryTally.replica == before.replica)
        #expect(stores.store.serverQueryTally.failed == before.failed)
    }

    @Test func anInvalidPredicateIsRefusedAsMemoryRefusesIt() throws {
        let stores = try Self.stores.get()
        let predicate = try FetchPredicate(format: "nosuchkey == 1")
        #expect(throws: ObjectGraphError.self) { try stores.serials(stores.postgres, "Item", predicate) }
    }
}

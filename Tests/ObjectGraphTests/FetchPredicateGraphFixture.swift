import Foundation
import SQLiteStorage
import TestSupport

@testable import ObjectGraph

/// An object graph with every kind of relationship, stored twice — in an SQLite store and in an in-memory
/// store — with the same values, so that a predicate can be answered three ways: compiled to SQL, evaluated
/// by the in-memory store, and evaluated on the objects (`filter`). Objects are matched across stores by
/// their `serial` attribute.
///
/// Person (and its sub-entity Contractor) n—1 Company (one-to-many: a foreign key on Person), Person n—m
/// Tag (a join table), Person → manager (to-one, no inverse), Person → friends (to-many, no inverse: a
/// join table of its own), Company → parent (to-one, no inverse).
final class PredicateGraph: @unchecked Sendable {
    static func makeModel(templates: [FetchRequestTemplate] = []) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "nickname", type: .string),
                    AttributeDescription(name: "age", type: .integer64),
                    AttributeDescription(name: "score", type: .double),
                    AttributeDescription(name: "born", type: .date),
                    AttributeDescription(name: "active", type: .boolean),
                ],
                relationships: [
                    RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "people", isToMany: true),
                    RelationshipDescription(name: "manager", destination: "Person"),
                    RelationshipDescription(name: "friends", destination: "Person", isToMany: true),
                ]),
            EntityDescription(
                name: "Contractor", attributes: [AttributeDescription(name: "rate", type: .double)],
                parentEntity: "Person"),
            EntityDescription(
                name: "Company",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "rating", type: .double),
                    AttributeDescription(name: "founded", type: .integer64),
                ],
                relationships: [
                    RelationshipDescription(name: "employees", destination: "Person", inverse: "company", isToMany: true),
                    RelationshipDescription(name: "parent", destination: "Company"),
                ]),
            EntityDescription(
                name: "Tag",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "weight", type: .integer64),
                ],
                relationships: [
                    RelationshipDescription(name: "people", destination: "Person", inverse: "tags", isToMany: true),
                ]),
        ], fetchRequestTemplates: templates)
    }

    /// One way of answering: a store behind a context, and every object's serial by ID.
    struct Side {
        let context: ManagedObjectContext
        let serials: [ManagedObjectID: Int64]
        let ids: [String: [Int64: ManagedObjectID]]
    }

    let directory = TemporaryDirectory(prefix: "predicate-graph")
    let model: ManagedObjectModel
    let sqlite: Side
    let memory: Side
    /// Every object of the SQLite side, loaded with its relationships, by entity (Contractors are People).
    let objects: [String: [ManagedObject]]
    let counts: (people: Int, companies: Int, tags: Int)

    /// How many objects a fetch of `entity` sees.
    func total(_ entity: String) -> Int {
        switch entity {
        case "Company": counts.companies
        case "Tag": counts.tags
        case "Contractor": counts.people / 6
        default: counts.people
        }
    }

    /// `strings` are the texts names are drawn from (PostgreSQL's side leaves out those with U+0000, which its text
    /// cannot hold).
    init(people: Int = 200, companies: Int = 18, tags: Int = 12, seed: UInt64 = 2024,
        strings: [String] = PredicateTestValues.strings) throws
    {
        model = try Self.makeModel()
        counts = (people, companies, tags)
        var sides: [Side] = []
        for kind in [PersistentStoreType.sqlite, .inMemory] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: kind, at: directory.file("graph.sqlite"))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            let model = model
            try context.performAndWait {
                var random = SeededRandom(seed: seed)
                try Self.populate(context, people: people, companies: companies, tags: tags, strings: strings,
                    random: &random)
            }
            sides.append(try context.performAndWait { try Self.side(context, model: model) })
        }
        sqlite = sides[0]
        memory = sides[1]
        objects = try Self.loadObjects(in: sqlite.context)
    }

    /// Every object of `context`'s store, with its relationships loaded, by entity (Contractors are People too).
    static func loadObjects(in context: ManagedObjectContext) throws -> [String: [ManagedObject]] {
        try context.performAndWait {
            var objects: [String: [ManagedObject]] = [:]
            for name in ["Person", "Company", "Tag"] {
                let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: name))
                for object in fetched {
                    for relationship in object.entity.relationships {
                        if relationship.isToMany {
                            _ = object.relatedObjects(forKey: relationship.name)
                        } else {
                            _ = object.relatedObject(forKey: relationship.name)
                        }
                    }
                }
                objects[name] = fetched
            }
            objects["Contractor"] = objects["Person"]?.filter { $0.entity.name == "Contractor" }
            return objects
        }
    }

    /// A worker of its own for a parallel test: a context on the SQLite store with every object loaded (the
    /// objects carry the same IDs as the shared side's), and a connection to the store's file.
    struct Worker {
        let context: ManagedObjectContext
        let objects: [String: [ManagedObject]]
        let connection: SQLiteConnection
    }

    func makeWorker() throws -> Worker {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = sqlite.context.persistentStoreCoordinator
        let connection = try SQLiteConnection(path: directory.file("graph.sqlite").path, mode: .readOnly)
        try PredicateSQLFunctions.register(on: connection)
        return Worker(context: context, objects: try Self.loadObjects(in: context), connection: connection)
    }

    static func side(_ context: ManagedObjectContext, model: ManagedObjectModel) throws -> Side {
        var serials: [ManagedObjectID: Int64] = [:]
        var ids: [String: [Int64: ManagedObjectID]] = [:]
        for name in ["Person", "Company", "Tag"] {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: name)) {
                let serial = object.value(forKey: "serial").int64Value ?? -1
                serials[object.objectID] = serial
                ids[name, default: [:]][serial] = object.objectID
            }
        }
        return Side(context: context, serials: serials, ids: ids)
    }

    static func populate(
        _ context: ManagedObjectContext, people: Int, companies: Int, tags: Int,
        strings: [String] = PredicateTestValues.strings, random: inout SeededRandom
    ) throws {
        func text(_ index: Int, nilChance: Double) -> AttributeValue {
            if index < strings.count { return .string(strings[index]) }
            return random.chance(nilChance) ? .null : .string(random.pick(strings))
        }
        var companyObjects: [ManagedObject] = []
        for index in 0..<companies {
            let company = try context.insertNewObject(forEntityName: "Company")
            company.setValue(.integer(Int64(index)), forKey: "serial")
            company.setValue(text((index * 7) % strings.count, nilChance: 0.1), forKey: "name")
            company.setValue(random.chance(0.2) ? .null : .double(random.pick([0.1, 0.2, 0.7, 1.5, 3.0, -2.25])),
                forKey: "rating")
            company.setValue(.integer(Int64(random.pick([1990, 2001, 2020, 1850]))), forKey: "founded")
            if index > 2, random.chance(0.5) { company.setRelatedObject(random.pick(companyObjects), forKey: "parent") }
            companyObjects.append(company)
        }
        var tagObjects: [ManagedObject] = []
        for index in 0..<tags {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(.integer(Int64(index)), forKey: "serial")
            tag.setValue(.string(["swift", "Swift", "SWIFT", "sqlite", "Ærø", "aero", "東京", "ß", "ss", "émile",
                "Émile", "x' OR 1=1 --"][index % 12]), forKey: "name")
            tag.setValue(random.chance(0.2) ? .null : .integer(Int64(index % 5)), forKey: "weight")
            tagObjects.append(tag)
        }
        var personObjects: [ManagedObject] = []
        for index in 0..<people {
            let contractor = index % 6 == 5
            let person = try context.insertNewObject(forEntityName: contractor ? "Contractor" : "Person")
            person.setValue(.integer(Int64(index)), forKey: "serial")
            person.setValue(text(index, nilChance: 0.1), forKey: "name")
            person.setValue(random.chance(0.4) ? .null : text(random.pick(Array(0..<strings.count)), nilChance: 0),
                forKey: "nickname")
            person.setValue(random.chance(0.15) ? .null : .integer(random.pick([-5, 0, 1, 2, 3, 7, 10, 42, 100])),
                forKey: "age")
            person.setValue(random.chance(0.15) ? .null : .double(random.pick([-2.5, 0, 0.1, 0.2, 0.3, 0.5, 1, 3.5, 7.25])),
                forKey: "score")
            person.setValue(random.chance(0.15) ? .null : .date(random.pick(PredicateTestValues.dates)), forKey: "born")
            person.setValue(random.chance(0.2) ? .null : .boolean(random.chance(0.5)), forKey: "active")
            if contractor { person.setValue(random.chance(0.3) ? .null : .double(random.pick([10, 20.5, 99])), forKey: "rate") }
            if !random.chance(0.15) { person.setRelatedObject(random.pick(companyObjects), forKey: "company") }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                person.addRelatedObject(random.pick(tagObjects), forKey: "tags")
            }
            if !personObjects.isEmpty, random.chance(0.6) {
                person.setRelatedObject(random.pick(personObjects), forKey: "manager")
            }
            if !personObjects.isEmpty {
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    person.addRelatedObject(random.pick(personObjects), forKey: "friends")
                }
            }
            personObjects.append(person)
        }
        try context.save()
    }

    // MARK: Answers

    /// Fills `$P12`, `$C3`, `$T5` (an object by entity initial and serial) with `side`'s objects.
    func bindObjects(_ predicate: FetchPredicate, on side: Side) throws -> FetchPredicate {
        var arguments: [String: any PredicateArgument] = [:]
        for name in predicate.variableNames {
            let entity = ["P": "Person", "C": "Company", "T": "Tag"][String(name.prefix(1))] ?? ""
            if let serial = Int64(name.dropFirst()), let id = side.ids[entity]?[serial] { arguments[name] = id }
        }
        return try predicate.withSubstitutionVariables(arguments: arguments)
    }

    /// The serials `side`'s store fetches for `predicate` on `entity`.
    func fetch(_ predicate: FetchPredicate, entity: String, on side: Side) throws -> Set<Int64> {
        let request = FetchRequest<ManagedObject>(entityName: entity, predicate: try bindObjects(predicate, on: side))
        let context = side.context
        let ids = try context.performAndWait { try context.fetchObjectIDs(request) }
        return Set(ids.compactMap { side.serials[$0] })
    }

    /// The serials SQLite selects for `predicate` compiled as the SQLite store compiles it, queried directly
    /// (without making row snapshots, which makes the random test affordable).
    func sqlSerials(_ predicate: FetchPredicate, entity name: String, on connection: SQLiteConnection) throws -> Set<Int64> {
        guard let store = sqlite.context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore,
            let entity = model.entity(named: name)
        else { throw ObjectGraphError.unknownEntity(name) }
        let layout = try store.layout(of: entity)
        let compiled = try bindObjects(predicate, on: sqlite)
            .sqlExpression(for: entity, schema: SQLiteStorePredicateSchema(store: store), alias: "t0")
        let sql = "SELECT t0.\(layout.column(forKey: "serial") ?? "") FROM \(layout.tableName) t0 WHERE t0.Z_ENT IN ("
            + layout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ") + ") AND (\(compiled.sql))"
        let rows = try connection.rows(sql, compiled.bindings.map(\.sqliteValue))
        return Set(rows.compactMap { $0.first?.integerValue })
    }

    /// The serials of the objects of `entity` that satisfy `predicate` in memory (on `worker`'s objects, or
    /// the shared ones).
    func filter(_ predicate: FetchPredicate, entity: String, worker: Worker? = nil) throws -> Set<Int64> {
        let bound = try bindObjects(predicate, on: sqlite)
        let objects = (worker?.objects ?? self.objects)[entity] ?? []
        return (worker?.context ?? sqlite.context).performAndWait {
            Set(objects.filter(bound).compactMap { $0.value(forKey: "serial").int64Value })
        }
    }
}

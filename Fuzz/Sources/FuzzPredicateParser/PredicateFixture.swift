import Foundation
import ObjectGraph

/// A tiny object graph in an SQLite store and in an in-memory store, on which every predicate the fuzzer
/// parses is run three ways: compiled to SQL, evaluated by the in-memory store, and evaluated on the
/// objects (`filter`). All three must give the same objects, or refuse with the same error.
final class PredicateFixture: @unchecked Sendable {
    let model: ManagedObjectModel
    let sqliteContext: ManagedObjectContext
    let memoryContext: ManagedObjectContext
    /// The people of the SQLite context, loaded with their relationships.
    let people: [ManagedObject]

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "nickname", type: .string),
                    AttributeDescription(name: "age", type: .integer64),
                    AttributeDescription(name: "score", type: .double),
                    AttributeDescription(name: "active", type: .boolean),
                ],
                relationships: [
                    RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "people", isToMany: true),
                    RelationshipDescription(name: "manager", destination: "Person"),
                ]),
            EntityDescription(
                name: "Company",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "rating", type: .double),
                ],
                relationships: [
                    RelationshipDescription(name: "employees", destination: "Person", inverse: "company", isToMany: true),
                    RelationshipDescription(name: "parent", destination: "Company"),
                ]),
            EntityDescription(
                name: "Tag",
                attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "people", destination: "Person", inverse: "tags", isToMany: true),
                ]),
        ])
    }

    init(directory: URL) throws {
        model = try Self.makeModel()
        let sqlite = PersistentStoreCoordinator(managedObjectModel: model)
        try sqlite.addPersistentStore(ofType: .sqlite, at: directory.appendingPathComponent("fuzz.sqlite"))
        let memory = PersistentStoreCoordinator(managedObjectModel: model)
        try memory.addPersistentStore(ofType: .inMemory)
        sqliteContext = ManagedObjectContext(concurrencyType: .privateQueue)
        sqliteContext.persistentStoreCoordinator = sqlite
        memoryContext = ManagedObjectContext(concurrencyType: .privateQueue)
        memoryContext.persistentStoreCoordinator = memory
        for context in [sqliteContext, memoryContext] {
            try context.performAndWait { try Self.populate(context) }
        }
        let context = sqliteContext
        people = try context.performAndWait {
            let fresh = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for person in fresh {
                _ = person.relatedObjects(forKey: "tags")
                _ = person.relatedObject(forKey: "company")?.relatedObjects(forKey: "employees")
            }
            return fresh
        }
    }

    private static func populate(_ context: ManagedObjectContext) throws {
        let names = ["Zoë", "zoe", "ÆRØ", "Émile", "東京", "x' OR 1=1 --"]
        let nicknames: [String?] = [nil, "Z", "", nil, "Straße", "%@"]
        let companies = try (0..<3).map { index in
            let company = try context.insertNewObject(forEntityName: "Company")
            company.setValue(.string(["Acme", "acmé", "Ｇlobex"][index]), forKey: "name")
            company.setValue(index == 1 ? .null : .double(Double(index) + 0.5), forKey: "rating")
            return company
        }
        companies[2].setRelatedObject(companies[0], forKey: "parent")
        let tags = try (0..<3).map { index in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(.string(["swift", "Swift", "ß"][index]), forKey: "name")
            return tag
        }
        var people: [ManagedObject] = []
        for (index, name) in names.enumerated() {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(.string(name), forKey: "name")
            person.setValue(nicknames[index].map(AttributeValue.string) ?? .null, forKey: "nickname")
            person.setValue(.integer(Int64(index * 7 % 5)), forKey: "age")
            person.setValue(index == 3 ? .null : .double(Double(index) * 0.1), forKey: "score")
            person.setValue(.boolean(index % 2 == 0), forKey: "active")
            if index < 5 { person.setRelatedObject(companies[index % 3], forKey: "company") }
            for tag in tags.enumerated() where (index + tag.offset) % 3 != 0 {
                person.addRelatedObject(tag.element, forKey: "tags")
            }
            if let manager = people.last, index % 2 == 1 { person.setRelatedObject(manager, forKey: "manager") }
            people.append(person)
        }
        try context.save()
    }

    /// What one way of answering gave: the names of the matching people, or an error's text.
    enum Outcome: Equatable {
        case names([String])
        case failure(String)
    }

    /// Runs `predicate` the three ways and stops the process when they disagree.
    func check(_ predicate: FetchPredicate) {
        let request = FetchRequest<ManagedObject>(entityName: "Person", predicate: predicate)
        let sql = outcome(sqliteContext, request)
        let store = outcome(memoryContext, request)
        let entity = model.entity(named: "Person")
        let objects: Outcome
        do {
            if let entity { try predicate.validate(for: entity, in: model) }
            let context = sqliteContext
            let people = people
            objects = .names(context.performAndWait { people.filter(predicate).compactMap { $0.value(forKey: "name").stringValue }.sorted() })
        } catch {
            objects = .failure(error.description)
        }
        if case .failure(let message) = sql, message.hasPrefix("SQLite") { return }  // e.g. an expression too deep
        precondition(
            sql == store && sql == objects,
            "disagreement for \(predicate.predicateFormat):\n  SQL: \(sql)\n  in-memory store: \(store)\n  objects: \(objects)")
    }

    private func outcome(_ context: ManagedObjectContext, _ request: FetchRequest<ManagedObject>) -> Outcome {
        context.performAndWait {
            do throws(ObjectGraphError) {
                return .names(try context.fetch(request).compactMap { $0.value(forKey: "name").stringValue }.sorted())
            } catch {
                if case .predicate(let error) = error { return .failure(error.description) }
                return .failure("SQLite or store: \(error)")
            }
        }
    }
}

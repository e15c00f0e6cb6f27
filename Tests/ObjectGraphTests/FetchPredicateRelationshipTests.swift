import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// A six-person graph small enough to work out every answer by hand.
///
/// | person | age | score | company | tags | manager | friends |
/// | --- | --- | --- | --- | --- | --- | --- |
/// | Ada | 36 | 0.5 | Acme | swift, ß | – | – |
/// | Bob | 17 | nil | Acme | Swift | Ada | Ada |
/// | Zoë | 25 | 2.0 | Initech | – | Ada | Ada, Bob |
/// | Émile | nil | 1.5 | – | swift | Zoë | – |
/// | 東京 | 50 | 0.25 | Globex | swift, Swift, ß | – | Zoë |
/// | Kim (Contractor, rate 10) | 40 | nil | Initech | ß | – | – |
///
/// Companies: Acme (rating 4.5), Globex (nil), Initech (1.0, parent Acme). Tags: swift (weight 3), Swift (1),
/// ß (nil).
private final class SmallGraph: @unchecked Sendable {
    let directory = TemporaryDirectory(prefix: "small-graph")
    let context: ManagedObjectContext
    var byName: [String: ManagedObject] = [:]

    init(_ kind: PersistentStoreType) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PredicateGraph.makeModel())
        try coordinator.addPersistentStore(ofType: kind, at: directory.file("small.sqlite"))
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let context = context
        byName = try context.performAndWait {
            var objects: [String: ManagedObject] = [:]
            func make(_ entity: String, _ name: String, _ values: [String: AttributeValue]) throws {
                let object = try context.insertNewObject(forEntityName: entity)
                object.setValue(.string(name), forKey: "name")
                for (key, value) in values { object.setValue(value, forKey: key) }
                objects[name] = object
            }
            try make("Company", "Acme", ["rating": 4.5])
            try make("Company", "Globex", [:])
            try make("Company", "Initech", ["rating": 1.0])
            try make("Tag", "swift", ["weight": 3])
            try make("Tag", "Swift", ["weight": 1])
            try make("Tag", "ß", [:])
            try make("Person", "Ada", ["age": 36, "score": 0.5])
            try make("Person", "Bob", ["age": 17])
            try make("Person", "Zoë", ["age": 25, "score": 2.0])
            try make("Person", "Émile", ["score": 1.5])
            try make("Person", "東京", ["age": 50, "score": 0.25])
            try make("Contractor", "Kim", ["age": 40, "rate": 10])
            func link(_ name: String, _ key: String, _ other: String) {
                guard let object = objects[name], let target = objects[other] else { return }
                if object.entity.relationship(named: key)?.isToMany == true {
                    object.addRelatedObject(target, forKey: key)
                } else {
                    object.setRelatedObject(target, forKey: key)
                }
            }
            link("Initech", "parent", "Acme")
            for (person, company) in [("Ada", "Acme"), ("Bob", "Acme"), ("Zoë", "Initech"), ("東京", "Globex"), ("Kim", "Initech")] {
                link(person, "company", company)
            }
            for (person, tags) in [("Ada", ["swift", "ß"]), ("Bob", ["Swift"]), ("Émile", ["swift"]),
                ("東京", ["swift", "Swift", "ß"]), ("Kim", ["ß"])] {
                for tag in tags { link(person, "tags", tag) }
            }
            for (person, manager) in [("Bob", "Ada"), ("Zoë", "Ada"), ("Émile", "Zoë")] { link(person, "manager", manager) }
            for (person, friends) in [("Bob", ["Ada"]), ("Zoë", ["Ada", "Bob"]), ("東京", ["Zoë"])] {
                for friend in friends { link(person, "friends", friend) }
            }
            try context.save()
            return objects
        }
    }

    /// The names a fetch of `entity` returns, and the names `filter` keeps in memory (they must agree).
    func names(_ entity: String, _ predicate: FetchPredicate) throws -> (fetched: [String], filtered: [String]) {
        let context = context
        let byName = byName
        return try context.performAndWait {
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
            let all = byName.values.filter { object in
                object.entity.name == entity || (entity == "Person" && object.entity.name == "Contractor")
            }
            return (fetched.compactMap { $0.value(forKey: "name").stringValue }.sorted(),
                all.filter(predicate).compactMap { $0.value(forKey: "name").stringValue }.sorted())
        }
    }
}

@Suite struct FetchPredicateRelationshipTests {
    static let cases: [(entity: String, format: String, expected: [String])] = [
        ("Person", "company.name == 'Acme'", ["Ada", "Bob"]),
        ("Person", "company.name ==[c] 'acme'", ["Ada", "Bob"]),
        ("Person", "company == nil", ["Émile"]),
        ("Person", "company != nil", ["Ada", "Bob", "Kim", "Zoë", "東京"]),
        ("Person", "company.rating > 2", ["Ada", "Bob"]),
        // A missing company or a nil rating is unknown: neither it nor its negation matches.
        ("Person", "NOT (company.rating > 2)", ["Kim", "Zoë"]),
        ("Person", "company.parent.name == 'Acme'", ["Kim", "Zoë"]),
        ("Person", "manager.name == 'Ada'", ["Bob", "Zoë"]),
        ("Person", "manager.manager.name == 'Ada'", ["Émile"]),
        ("Person", "ANY tags.name == 'swift'", ["Ada", "Émile", "東京"]),
        ("Person", "SOME tags.name ==[c] 'swift'", ["Ada", "Bob", "Émile", "東京"]),
        // ALL holds for an empty collection (Zoë); NONE is NOT ANY.
        ("Person", "ALL tags.name ==[c] 'swift'", ["Bob", "Émile", "Zoë"]),
        ("Person", "NONE tags.name ==[c] 'swift'", ["Kim", "Zoë"]),
        // Without a qualifier a to-many key path means ANY…
        ("Person", "tags.name == 'Swift'", ["Bob", "東京"]),
        // …except where IN and CONTAINS look for a value among the names.
        ("Person", "'ß' IN tags.name", ["Ada", "Kim", "東京"]),
        ("Person", "tags.name CONTAINS 'ß'", ["Ada", "Kim", "東京"]),
        ("Person", "ANY tags.name CONTAINS 'w'", ["Ada", "Bob", "Émile", "東京"]),
        ("Person", "tags.@count == 0", ["Zoë"]),
        ("Person", "tags.@count >= 2", ["Ada", "東京"]),
        ("Person", "tags.@sum.weight == 4", ["東京"]),
        ("Person", "tags.@avg.weight == 3", ["Ada", "Émile"]),
        ("Person", "tags.@avg.weight == nil", ["Kim", "Zoë"]),
        ("Person", "tags.@max.weight == 3", ["Ada", "Émile", "東京"]),
        ("Person", "tags.@min.name == 'Swift'", ["Bob", "東京"]),
        ("Person", "SUBQUERY(tags, $t, $t.weight > 1).@count == 1", ["Ada", "Émile", "東京"]),
        ("Person", "SUBQUERY(friends, $f, $f.age > 30).@count > 0", ["Bob", "Zoë"]),
        ("Person", "SUBQUERY(friends, $f, $f.age > 30).@count == 0", ["Ada", "Kim", "Émile", "東京"]),
        ("Person", "ANY friends.company.name == 'Acme'", ["Bob", "Zoë"]),
        ("Person", "friends.@count == 2", ["Zoë"]),
        ("Person", "ALL friends.age > 20", ["Ada", "Bob", "Kim", "Émile", "東京"]),
        ("Person", "manager == SELF", []),
        ("Person", "company.employees.@count == 2", ["Ada", "Bob", "Kim", "Zoë"]),
        ("Person", "ANY {17, 25} == age", ["Bob", "Zoë"]),
        ("Person", "NONE {17, 25} == age", ["Ada", "Kim", "Émile", "東京"]),
        ("Person", "name ==[n] 'zoë'", []),
        ("Person", "name ==[cdn] 'Zoë'", ["Zoë"]),
        ("Contractor", "rate > 5", ["Kim"]),
        ("Company", "employees.@count > 1", ["Acme", "Initech"]),
        ("Company", "ANY employees.name == 'Ada'", ["Acme"]),
        ("Company", "ALL employees.age > 20", ["Globex", "Initech"]),
        ("Company", "employees.@avg.age == 32.5", ["Initech"]),
        ("Company", "parent == nil", ["Acme", "Globex"]),
        ("Tag", "people.@count == 3", ["swift", "ß"]),
        ("Tag", "ANY people.manager.name == 'Ada'", ["Swift"]),
    ]

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func everyOperatorAndQualifierOnRelationships(kind: PersistentStoreType) throws {
        let graph = try SmallGraph(kind)
        for (entity, format, expected) in Self.cases {
            let predicate = try FetchPredicate(format: format)
            let (fetched, filtered) = try graph.names(entity, predicate)
            #expect(fetched == expected.sorted(), "\(kind) store: \(entity) where \(format)")
            #expect(filtered == expected.sorted(), "in memory: \(entity) where \(format)")
        }
    }

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func objectsAsArguments(kind: PersistentStoreType) throws {
        let graph = try SmallGraph(kind)
        let objects = graph.byName
        func check(_ format: String, _ argument: any PredicateArgument, _ expected: [String]) throws {
            let predicate = try FetchPredicate(format: format, argument)
            let (fetched, filtered) = try graph.names("Person", predicate)
            #expect(fetched == expected.sorted(), "\(kind): \(format)")
            #expect(filtered == expected.sorted(), "memory: \(format)")
        }
        let ada = try #require(objects["Ada"])
        let zoe = try #require(objects["Zoë"])
        try check("SELF IN %@", [ada, zoe], ["Ada", "Zoë"])
        try check("SELF IN %@", [ada.objectID, zoe.objectID], ["Ada", "Zoë"])
        try check("SELF == %@", try #require(objects["Bob"]), ["Bob"])
        try check("SELF != %@", ada, ["Bob", "Kim", "Zoë", "Émile", "東京"])
        try check("manager == %@", ada, ["Bob", "Zoë"])
        try check("%@ IN tags", try #require(objects["swift"]), ["Ada", "Émile", "東京"])
        try check("tags CONTAINS %@", try #require(objects["ß"]), ["Ada", "Kim", "東京"])
        try check("ANY friends == %@", ada, ["Bob", "Zoë"])
        try check("NONE friends == %@", ada, ["Ada", "Kim", "Émile", "東京"])
        try check("company IN %@", [try #require(objects["Acme"]), try #require(objects["Globex"])], ["Ada", "Bob", "東京"])
        // An object of another entity, or an unsaved one, is nobody.
        try check("SELF == %@", try #require(objects["Acme"]), [])
        let fresh = try graph.context.performAndWait { try graph.context.insertNewObject(forEntityName: "Person") }
        try check("SELF IN %@", [fresh], [])
        graph.context.performAndWait { graph.context.delete(fresh) }
        // A template variable can be an object too.
        let template = try FetchPredicate(format: "company == $COMPANY")
        let filled = try template.withSubstitutionVariables(arguments: ["COMPANY": try #require(objects["Initech"])])
        #expect(try graph.names("Person", filled).fetched == ["Kim", "Zoë"])
    }

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory])
    func modelMistakesAreErrorsNamingKeyAndEntity(kind: PersistentStoreType) throws {
        let graph = try SmallGraph(kind)
        let cases: [(format: String, kind: FetchPredicateError.Kind, offset: Int, text: String)] = [
            ("colour == 'red'", .unknownKey, 0, "entity Person has no attribute or relationship named 'colour'"),
            ("age > 3 AND company.colour == 1", .unknownKey, 12, "entity Company has no attribute or relationship named 'colour'"),
            ("name.first == 'x'", .unknownKey, 0, "'name' of entity Person is an attribute"),
            ("friends.tags.@count > 1", .unsupported, 0, "crosses several to-many relationships"),
            ("ANY company.name == 'x'", .invalidValue, 4, "ANY on a key path without a to-many relationship"),
            ("ALL age > 3", .invalidValue, 4, "ALL on a key path without a to-many relationship"),
            ("company > 3", .invalidValue, 0, "Object compared with >"),
            ("tags BEGINSWITH 'x'", .invalidValue, 0, "Object compared with BEGINSWITH"),
            ("tags.name == friends.name", .invalidValue, 0, "Collection on both sides"),
            ("tags.@sum.name > 1", .invalidValue, 0, "@sum of 'name' needs numbers"),
            ("name.@count > 1", .invalidValue, 0, "'name' is not a to-many relationship"),
            ("company.@count > 1", .invalidValue, 0, "'company' is not a to-many relationship"),
            ("tags.@max.people > 1", .invalidValue, 0, "@max of 'people' needs an attribute"),
            ("SUBQUERY(company, $c, $c.name == 'x').@count > 0", .invalidValue, 0, "'company' is not a to-many"),
            ("SUBQUERY(tags, $t, $t.colour == 'x').@count > 0", .unknownKey, 19, "entity Tag has no attribute"),
            ("rate > 3", .unknownKey, 0, "entity Person has no attribute or relationship named 'rate'"),
            ("name == $NAME", .unsubstitutedVariable, 8, "Variable '$NAME' has no value"),
        ]
        for (format, kind, offset, text) in cases {
            let predicate = try FetchPredicate(format: format)
            let error: ObjectGraphError? = graph.context.performAndWait {
                do throws(ObjectGraphError) {
                    _ = try graph.context.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: predicate))
                    return nil
                } catch {
                    return error
                }
            }
            guard case .predicate(let predicateError)? = error else {
                Issue.record("\(format): expected a predicate error, got \(String(describing: error))")
                continue
            }
            #expect(predicateError.kind == kind, "\(format): \(predicateError)")
            #expect(predicateError.offset == offset, "\(format): \(predicateError)")
            #expect(predicateError.description.contains(text), "\(format): \(predicateError)")
        }
    }

    @Test func pendingChangesAreReEvaluatedThroughRelationships() throws {
        let graph = try SmallGraph(.sqlite)
        let context = graph.context
        try context.performAndWait {
            // Move Émile to Acme and give Zoë a tag, unsaved: the fetch re-evaluates those two in memory.
            let acme = try #require(graph.byName["Acme"])
            try #require(graph.byName["Émile"]).setRelatedObject(acme, forKey: "company")
            try #require(graph.byName["Zoë"]).addRelatedObject(try #require(graph.byName["Swift"]), forKey: "tags")
            let inAcme = try context.fetch(FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try FetchPredicate(format: "company.name == 'Acme'"),
                sortCriteria: [SortCriterion("name")]))
            #expect(inAcme.compactMap { $0.value(forKey: "name").stringValue } == ["Ada", "Bob", "Émile"])
            let tagged = try context.fetch(FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try FetchPredicate(format: "tags.@count == 0")))
            #expect(tagged.isEmpty)
        }
    }
}

import Foundation
import PropertyBased
import Testing
import TestSupport

@testable import ObjectGraph

/// Collection indexes (`tags[FIRST]`, `items[LAST].name`, `labels[2]`) on ordered and unordered to-many
/// relationships, and key paths through several to-many relationships under `ANY`/`ALL`/`NONE` and inside
/// `SUBQUERY`: SQL, the in-memory store and evaluation on the objects must agree, with nils, empty
/// relationships, positions past the end and ties (equal names, equal weights).
@Suite struct FetchPredicateIndexAndPathTests {
    static let ordered = Result { try OrderedPredicateGraph() }

    @Test func parsesIndexesAndPrintsThemBack() throws {
        let cases: [(String, String)] = [
            ("tags[FIRST].name == 'x'", "tags[FIRST].name == \"x\""),
            ("tags[last] == nil", "tags[LAST] == nil"),
            ("company.employees[2].age > 3", "company.employees[2].age > 3"),
            ("items[%d].weight > 1", "items[3].weight > 1"),
            ("tags[SIZE] > 1", "tags.@count > 1"),
            ("SUBQUERY(friends, $f, $f.tags[FIRST].name == 'x').@count > 0",
                "SUBQUERY(friends, $f, $f.tags[FIRST].name == \"x\").@count > 0"),
            ("items[0].#size == 1", "items[0].#size == 1"),
        ]
        for (format, printed) in cases {
            let predicate = format.contains("%d") ? try FetchPredicate(format: format, 3) : try FetchPredicate(format: format)
            #expect(predicate.predicateFormat == printed, "\(format)")
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
        }
    }

    @Test func badIndexesAreTypedErrorsWithPositions() throws {
        let cases: [(format: String, offset: Int, kind: FetchPredicateError.Kind, text: String)] = [
            ("tags[-1] == nil", 5, .syntax, "expected FIRST, LAST, SIZE or a whole number"),
            ("tags[1.5] == nil", 5, .invalidValue, "Index '1.5' is not a position"),
            ("tags[name] == nil", 5, .syntax, "expected FIRST, LAST, SIZE"),
            ("tags[FIRST == nil", 11, .syntax, "expected ']'"),
            ("tags.@max.weight[FIRST] == 1", 16, .unsupported, "An index after a collection operator"),
            ("tags[FIRST].@count == 1", 4, .unsupported, "A collection operator after an index"),
            ("tags[FIRST][0] == nil", 11, .unsupported, "Indexing"),
        ]
        for (format, offset, kind, text) in cases {
            do {
                _ = try FetchPredicate(format: format)
                Issue.record("\(format) parsed")
            } catch {
                #expect(error.kind == kind, "\(format): \(error)")
                #expect(error.offset == offset, "\(format): \(error)")
                #expect(error.description.contains(text), "\(format): \(error)")
            }
        }
        // Model mistakes are found when a store checks the predicate.
        let graph = try FetchPredicateGraphDifferentialTests.graph.get()
        let modelCases: [(String, String)] = [
            ("company[FIRST] == nil", "'company' is not a to-many relationship"),
            ("tags[FIRST].people.name == 'x'", "crosses a to-many relationship"),
            ("friends.tags[FIRST] == nil", "crosses several to-many relationships"),
            ("friends.tags.@count > 1", "crosses several to-many relationships"),
            ("SUBQUERY(friends.tags, $t, $t.weight > 1).@count > 0", "crosses several to-many relationships"),
            ("lowercase(tags.name) == 'x'", "Function 'lowercase:' of something that is not a single value"),
            ("tags[FIRST] > 3", "Object compared with >"),
        ]
        for (format, text) in modelCases {
            for side in [graph.sqlite, graph.memory] {
                #expect("\(format)") {
                    try graph.fetch(try FetchPredicate(format: format), entity: "Person", on: side)
                } throws: { error in
                    "\(error)".contains(text)
                }
            }
        }
    }

    static let unorderedFormats: [(entity: String, format: String)] = [
        ("Person", "tags[FIRST].name == 'swift'"), ("Person", "tags[LAST].name ==[c] 'SWIFT'"),
        ("Person", "tags[0].weight > 1"), ("Person", "tags[1].weight == nil"), ("Person", "tags[2] != nil"),
        ("Person", "tags[FIRST] == nil"), ("Person", "tags[LAST] == $T3"), ("Person", "tags[FIRST] IN {$T1, $T2, $T5}"),
        ("Person", "friends[FIRST].company.name == 'Zoë'"), ("Person", "friends[LAST] == manager"),
        ("Person", "friends[FIRST].manager == nil"), ("Person", "friends[0].age > age"),
        ("Person", "company.employees[FIRST].age > 10"), ("Person", "company.employees[LAST] == SELF"),
        ("Person", "company.employees[3].name BEGINSWITH 'a'"), ("Company", "employees[FIRST].age > 10"),
        ("Company", "employees[LAST].score > 0.3"), ("Tag", "people[FIRST].company.founded < 2000"),
        ("Person", "lowercase(tags[FIRST].name) == 'swift'"),
        ("Person", "SUBQUERY(friends, $f, $f.tags[FIRST].weight >= 2).@count > 0"),
        ("Person", "ANY friends.tags.name == 'swift'"), ("Person", "ALL friends.tags.weight > 1"),
        ("Person", "NONE friends.tags.name ==[cd] 'aero'"), ("Person", "friends.tags.weight > 3"),
        ("Person", "'sqlite' IN friends.tags.name"), ("Person", "friends.tags.name CONTAINS 'ß'"),
        ("Person", "ANY friends.friends.name ==[c] 'zoe'"), ("Person", "ANY friends.tags == $T2"),
        ("Person", "ALL friends.tags != $T2"), ("Person", "ANY friends.friends.tags.weight == 4"),
        ("Person", "ANY company.employees.tags.name == 'Ærø'"), ("Person", "ALL friends.tags.weight BETWEEN {1, 3}"),
        ("Person", "ANY friends.company.employees.age > 40"), ("Person", "NONE friends.tags.weight == nil"),
        ("Person", "ANY friends.company.employees.age == nil"), ("Person", "ALL friends.company.employees.age != nil"),
        ("Person", "ANY friends.manager.tags.name == nil"), ("Person", "NONE friends.manager.friends.score == nil"),
        ("Person", "SUBQUERY(friends, $f, ANY $f.friends.tags.name == 'sqlite').@count > 1"),
        ("Company", "ANY employees.friends.tags.name == 'Swift'"), ("Company", "ALL employees.tags.weight < 4"),
        ("Tag", "ANY people.friends.name == 'abc'"), ("Tag", "NONE people.tags.name == 'ss'"),
        ("Person", "ANY friends.tags.name == 'swift' AND tags[FIRST].name != 'swift'"),
        ("Person", "lowercase(company.name) == 'zoë'"), ("Person", "abs(manager.age - age) < 3"),
        ("Person", "FUNCTION(tags[FIRST].weight, 'modulus:by:', 2) == 1"), ("Person", "length(nickname) > 3"),
        ("Person", "SUBQUERY(tags, $t, uppercase($t.name) ==[d] 'EMILE').@count > 0"),
        ("Person", "floor(tags.@avg.weight) == 2"), ("Person", "ANY friends.tags.weight > sqrt(age)"),
        ("Company", "ALL employees.friends.age < abs(founded - 1990)"),
    ]

    @Test func unorderedIndexesAndSeveralToManyAgree() throws {
        let graph = try FetchPredicateGraphDifferentialTests.graph.get()
        var discriminating = 0
        for (entity, format) in Self.unorderedFormats {
            let predicate = try FetchPredicate(format: format)
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
            let (sql, store, objects) = try FetchPredicateGraphDifferentialTests.check(graph, entity, predicate)
            #expect(sql == store && sql == objects, """
                \(entity) where \(format): SQL \(sql.count), store \(store.count), objects \(objects.count)
                  only SQL: \(sql.subtracting(objects).sorted().prefix(8)) only objects: \(objects.subtracting(sql).sorted().prefix(8))
                  store vs SQL: \(store.symmetricDifference(sql).sorted().prefix(8))
                """)
            if !sql.isEmpty, sql.count < graph.total(entity) { discriminating += 1 }
        }
        #expect(discriminating > Self.unorderedFormats.count * 3 / 4, "\(discriminating) of \(Self.unorderedFormats.count)")
    }

    static let orderedFormats: [(entity: String, format: String)] = [
        ("Owner", "items[FIRST].name == 'a'"), ("Owner", "items[LAST].name ==[cd] 'ZOE'"), ("Owner", "items[0].weight > 2"),
        ("Owner", "items[1].weight == nil"), ("Owner", "items[3] != nil"), ("Owner", "items[FIRST] == nil"),
        ("Owner", "items[LAST].label.name == 'b'"), ("Owner", "items[2].label == labels[FIRST]"),
        ("Owner", "labels[FIRST].name == 'Zoë'"), ("Owner", "labels[LAST].name == nil"), ("Owner", "labels[1] != nil"),
        ("Owner", "items[FIRST].weight < items[LAST].weight"), ("Owner", "items[LAST].owner == SELF"),
        ("Owner", "pals[FIRST].items[FIRST] == nil" /* refused below */),
        ("Owner", "ANY pals.items.name == 'b'"), ("Owner", "ALL pals.labels.name != 'a'"),
        ("Owner", "NONE pals.pals.items.weight > 3"), ("Owner", "ANY labels.owners.items.weight == 5"),
        ("Owner", "SUBQUERY(pals, $p, $p.items[LAST].weight > 2).@count > 0"),
        ("Owner", "SUBQUERY(pals, $p, ANY $p.labels.owners.name == 'zoe').@count > 1"),
        ("Label", "owners[FIRST].items[FIRST] == nil" /* refused below */), ("Label", "ANY owners.items.name == 'a'"),
        ("Label", "owners[FIRST].name == 'a'"), ("Item", "owner.items[FIRST] == SELF"), ("Item", "owner.labels[LAST] == label"),
        ("Item", "ANY owner.pals.items.weight > 4"), ("Item", "label.owners[FIRST].items[LAST] == SELF" /* refused */),
    ]

    @Test func orderedIndexesAndSeveralToManyAgree() throws {
        let graph = try Self.ordered.get()
        var discriminating = 0
        var checked = 0
        for (entity, format) in Self.orderedFormats {
            let predicate: FetchPredicate
            do {
                predicate = try FetchPredicate(format: format)
            } catch {
                // An index after an index is refused when parsed.
                #expect(format.contains("][") || format.components(separatedBy: "[").count > 2, "\(format): \(error)")
                continue
            }
            checked += 1
            let (sql, store, atomic, objects) = try graph.answers(predicate, entity: entity)
            #expect(sql == store && sql == objects && atomic == store, """
                \(entity) where \(format): SQL \(sql.count), store \(store.count), atomic \(atomic.count), objects \(objects.count)
                  only SQL: \(sql.subtracting(objects).sorted().prefix(8)) only objects: \(objects.subtracting(sql).sorted().prefix(8))
                  store vs SQL: \(store.symmetricDifference(sql).sorted().prefix(8))
                """)
            if !sql.isEmpty, sql.count < (graph.objects[entity]?.count ?? 0) { discriminating += 1 }
        }
        #expect(checked >= Self.orderedFormats.count - 3)
        #expect(discriminating > checked * 3 / 4, "\(discriminating) of \(checked)")
    }

    /// The ordered relationships' order matters: an index evaluated in primary-key order would differ.
    @Test func orderedIndexesFollowTheRelationshipsOrderNotPrimaryKeys() throws {
        let graph = try Self.ordered.get()
        let context = graph.sqlite.context
        let owners = graph.objects["Owner"] ?? []
        var differing = 0
        context.performAndWait {
            for owner in owners {
                let items = owner.relatedObjects(forKey: "items")
                guard let first = items.first, let last = items.last else { continue }
                let byKey = items.min { $0.objectID.key < $1.objectID.key }
                if byKey?.objectID != first.objectID { differing += 1 }
                do {
                    let predicate = try FetchPredicate(format: "items[FIRST] == %@ AND items[LAST] == %@", first, last)
                    #expect(predicate.evaluate(with: owner))
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        #expect(differing > 5, "only \(differing) owners list their items out of primary-key order")
    }

    /// Random index and several-to-many comparisons over the ordered graph: positions, properties, operators
    /// and values drawn at random, every answer the same three ways.
    @Test func randomIndexPredicatesAgree() async throws {
        let graph = try Self.ordered.get()
        let problems = Locked<[String]>([])
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = SeededRandom(seed: UInt64(seed))
            let (entity, format) = Self.randomFormat(&random)
            do {
                let predicate = try FetchPredicate(format: format)
                let (sql, store, atomic, objects) = try graph.answers(predicate, entity: entity)
                if sql != store || sql != objects || atomic != store {
                    problems.withLock {
                        $0.append("seed \(seed) \(entity) where \(format): SQL \(sql.sorted().prefix(6)), "
                            + "store \(store.sorted().prefix(6)), atomic \(atomic.sorted().prefix(6)), "
                            + "objects \(objects.sorted().prefix(6))")
                    }
                }
            } catch {
                problems.withLock { $0.append("seed \(seed) \(entity) where \(format): \(error)") }
            }
        }
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) problems\n\(found.prefix(6).joined(separator: "\n"))")
    }

    static func randomFormat(_ random: inout SeededRandom) -> (String, String) {
        let position = random.pick(["FIRST", "LAST", "0", "1", "2", "5"])
        let value = random.pick(["'a'", "'b'", "'zoe'", "'Zoë'", "nil", "2", "4"])
        let operation = random.pick(["==", "!=", "<", ">=", "==[cd]", "BEGINSWITH[c]"])
        let qualifier = random.pick(["ANY", "ALL", "NONE", ""])
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return ("Owner", "items[\(position)].\(random.pick(["name", "weight", "label.name"])) \(operation) \(value)")
        case 1: return ("Owner", "labels[\(position)].name \(operation) \(value)")
        case 2:
            let path = random.pick(["pals.items.name", "pals.items.weight", "pals.labels.name", "labels.owners.name",
                "pals.pals.items.weight", "labels.owners.items.label.name"])
            return ("Owner", "\(qualifier) \(path) \(operation) \(value)")
        case 3:
            return ("Owner", "items[\(position)] \(random.pick(["==", "!="])) \(random.pick(["nil", "labels[FIRST]", "SELF"]))"
                .replacingOccurrences(of: "labels[FIRST]", with: "items[\(random.pick(["FIRST", "LAST", "1"]))]"))
        case 4:
            return ("Label", "\(qualifier) owners.items.\(random.pick(["name", "weight"])) \(operation) \(value)")
        default:
            return ("Item", "owner.items[\(position)].\(random.pick(["name", "weight"])) \(operation) \(value)")
        }
    }
}

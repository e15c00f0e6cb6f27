import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// Relationships, qualifiers, collection operators, subqueries and `SELF`: every predicate must select the
/// same objects through SQL (the SQLite store), through the in-memory store, and evaluated on the objects.
@Suite struct FetchPredicateGraphDifferentialTests {
    /// One graph for the suite: building it saves a few hundred objects twice.
    static let graph = Result { try PredicateGraph() }

    static let handWritten: [(entity: String, format: String)] = [
        ("Person", "company.name == 'Zoë'"), ("Person", "company.name ==[cd] 'zoe'"), ("Person", "company == nil"),
        ("Person", "company != nil"), ("Person", "company.rating > 0.5"), ("Person", "NOT (company.rating > 0.5)"),
        ("Person", "company.parent.name BEGINSWITH[c] 'a'"), ("Person", "company.parent == nil"),
        ("Person", "manager.company.founded < 2000"), ("Person", "manager.manager.age > 3"),
        ("Person", "manager == $P3"), ("Person", "manager IN {$P1, $P2, $P3, nil}"), ("Person", "company == $C1"),
        ("Person", "company != $C1"), ("Person", "company IN {$C0, $C2}"), ("Person", "company.parent == $C1"),
        ("Person", "SELF == $P7"), ("Person", "SELF IN {$P1, $P5, $P11, $P199}"), ("Person", "NOT SELF IN {$P1}"),
        ("Person", "SELF != nil"), ("Person", "SELF == nil"), ("Person", "manager == SELF"),
        ("Person", "company == manager.company"), ("Person", "company != manager.company"),
        ("Person", "ANY tags.name == 'swift'"), ("Person", "ANY tags.name ==[c] 'swift'"),
        ("Person", "SOME tags.name ==[cd] 'AERO'"), ("Person", "ALL tags.name ==[c] 'swift'"),
        ("Person", "NONE tags.name ==[c] 'swift'"), ("Person", "NOT (ANY tags.name == 'swift')"),
        ("Person", "tags.name == 'swift'"), ("Person", "tags.name != 'swift'"), ("Person", "'swift' IN tags.name"),
        ("Person", "tags.name CONTAINS 'swift'"), ("Person", "tags.name CONTAINS[c] 'SWIFT'"),
        ("Person", "tags.name IN {'ß', 'ss'}"), ("Person", "ANY tags.name BEGINSWITH 's'"),
        ("Person", "ALL tags.weight > 1"), ("Person", "ALL tags.weight > 1 AND tags.@count > 0"),
        ("Person", "ANY tags.weight == nil"), ("Person", "NONE tags.weight == nil"),
        ("Person", "ANY tags.weight BETWEEN {1, 3}"), ("Person", "ANY tags == $T1"), ("Person", "$T1 IN tags"),
        ("Person", "tags CONTAINS $T2"), ("Person", "ALL tags != $T2"), ("Person", "NONE tags == $T2"),
        ("Person", "ANY friends.name ==[cd] 'zoe'"), ("Person", "ANY friends == $P4"), ("Person", "friends.@count == 2"),
        ("Person", "ANY friends.company.name == 'Zoë'"), ("Person", "company.employees.@count > 12"),
        ("Person", "ANY company.employees.name == 'abc'"), ("Person", "tags.@count == 0"),
        ("Person", "tags.@count >= 2"), ("Person", "tags.@sum.weight > 4"), ("Person", "tags.@avg.weight < 2"),
        ("Person", "tags.@avg.weight == nil"), ("Person", "tags.@min.name == 'swift'"),
        ("Person", "tags.@max.weight >= 3"), ("Person", "tags.@max.name BEGINSWITH[c] 's'"),
        ("Person", "company.employees.@avg.score > 0.6"), ("Person", "company.employees.@sum.score == 3.3"),
        ("Person", "company.employees.@max.born > CAST(0, 'NSDate')"), ("Person", "friends.@max.company.rating > 1"),
        ("Person", "SUBQUERY(tags, $t, $t.name ==[c] 'swift').@count > 0"),
        ("Person", "SUBQUERY(tags, $t, $t.weight > 1 AND $t.name BEGINSWITH 's').@count == 1"),
        ("Person", "SUBQUERY(friends, $f, $f.company == $C2 OR $f.age > 10).@count >= 1"),
        ("Person", "SUBQUERY(friends, $f, ANY $f.tags.name == 'sqlite').@count > 0"),
        ("Person", "SUBQUERY(friends, $f, SUBQUERY($f.tags, $t, $t.weight == 2).@count > 0).@count > 0"),
        ("Person", "SUBQUERY(tags, $t, $t.weight > 0).@max.weight == 4"),
        ("Person", "SUBQUERY(tags, $t, $t IN {$T1, $T2}).@count == 2"),
        ("Person", "ANY {1, 2, 3} == age"), ("Person", "ALL {1, 2} < age"), ("Person", "NONE {} == age"),
        ("Person", "ALL {} == age"), ("Person", "ANY {} == age"), ("Person", "name IN tags.name"),
        ("Company", "employees.@count > 12"), ("Company", "ANY employees.age > 40"), ("Company", "ALL employees.age > 0"),
        ("Company", "NONE employees.active == YES"), ("Company", "employees.@sum.age > 200"),
        ("Company", "employees.@avg.score BETWEEN {0.5, 1}"), ("Company", "ANY employees.company.name == 'Zoë'"),
        ("Company", "parent.employees.@count > 10"), ("Company", "ANY employees == $P10"),
        ("Company", "SUBQUERY(employees, $e, $e.manager.company == SELF).@count > 0"),
        ("Company", "SUBQUERY(employees, $e, $e.company.parent != nil).@count > 0"), ("Company", "SELF == parent"),
        ("Tag", "people.@count > 20"), ("Tag", "ANY people.company.name ==[cd] 'ZOE'"), ("Tag", "people.@max.age == 100"),
        ("Tag", "ALL people.age > 1"), ("Tag", "SUBQUERY(people, $p, $p.tags.@count > 2).@count > 1"),
        ("Contractor", "rate > 15"), ("Contractor", "company.employees.@max.age == 100"),
        ("Contractor", "ANY tags.name == 'Ærø'"), ("Person", "company.employees.@count == company.employees.@count"),
    ]

    static func check(
        _ graph: PredicateGraph, _ entity: String, _ predicate: FetchPredicate
    ) throws -> (sql: Set<Int64>, store: Set<Int64>, objects: Set<Int64>) {
        (try graph.fetch(predicate, entity: entity, on: graph.sqlite),
         try graph.fetch(predicate, entity: entity, on: graph.memory), try graph.filter(predicate, entity: entity))
    }

    @Test func handWrittenPredicatesAgree() throws {
        let graph = try Self.graph.get()
        var discriminating = 0
        for (entity, format) in Self.handWritten {
            let predicate = try FetchPredicate(format: format)
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
            let (sql, store, objects) = try Self.check(graph, entity, predicate)
            #expect(sql == store && sql == objects, """
                \(entity) where \(format): SQL \(sql.count), in-memory store \(store.count), objects \(objects.count)
                  only SQL: \(sql.subtracting(objects).sorted().prefix(8)) only objects: \(objects.subtracting(sql).sorted().prefix(8))
                  store vs SQL: \(store.symmetricDifference(sql).sorted().prefix(8))
                """)
            if !sql.isEmpty, sql.count < graph.total(entity) { discriminating += 1 }
        }
        // Most of them must select some but not all objects, or agreement proves little.
        #expect(discriminating > Self.handWritten.count * 2 / 3, "\(discriminating) of \(Self.handWritten.count)")
    }

    /// 10,000 random predicates per run, in four parallel batches of 2,500: SQL (compiled as the SQLite
    /// store compiles it) against evaluation on the objects for all of them, and the in-memory store for every
    /// fourth. The seed is printed with every disagreement; `PREDICATE_SEED=<n>` replays a run and
    /// `PREDICATE_COUNT=<n>` changes the batch size.
    @Test(arguments: 0..<4)
    func randomPredicatesAgree(batch: Int) throws {
        let graph = try Self.graph.get()
        let base = ProcessInfo.processInfo.environment["PREDICATE_SEED"].flatMap { UInt64($0) } ?? 0x0B7E_C7_6A_F1
        let seed = base &+ UInt64(batch)
        let count = ProcessInfo.processInfo.environment["PREDICATE_COUNT"].flatMap { Int($0) } ?? 2_500
        var generator = PredicateGraphGenerator(random: SeededRandom(seed: seed), counts: graph.counts)
        let worker = try graph.makeWorker()
        var problems: [String] = []
        var selective = 0
        for index in 0..<count {
            let (entity, predicate) = generator.next()
            do {
                let reparsed = try FetchPredicate(format: predicate.predicateFormat)
                if reparsed != predicate { problems.append("#\(index) does not round-trip: \(predicate.predicateFormat)") }
                let sql = try graph.sqlSerials(predicate, entity: entity, on: worker.connection)
                let objects = try graph.filter(predicate, entity: entity, worker: worker)
                let store = index % 4 == 0 ? try graph.fetch(predicate, entity: entity, on: graph.memory) : sql
                if sql != store || sql != objects {
                    problems.append("""
                        #\(index) \(entity) where \(predicate.predicateFormat)
                          SQL \(sql.count), objects \(objects.count); only SQL: \(sql.subtracting(objects).sorted().prefix(6)), \
                        only objects: \(objects.subtracting(sql).sorted().prefix(6)), store vs SQL: \
                        \(store.symmetricDifference(sql).sorted().prefix(6))
                        """)
                }
                if !sql.isEmpty, sql.count < graph.total(entity) { selective += 1 }
            } catch {
                problems.append("#\(index) \(entity) where \(predicate.predicateFormat): \(error)")
            }
            if problems.count >= 10 { break }
        }
        #expect(problems.isEmpty, """
            seed \(seed) (replay with PREDICATE_SEED=\(base)): \(problems.count) problems
            \(problems.joined(separator: "\n"))
            """)
        #expect(selective > count / 5, "only \(selective) of \(count) predicates select a proper subset")
    }
}

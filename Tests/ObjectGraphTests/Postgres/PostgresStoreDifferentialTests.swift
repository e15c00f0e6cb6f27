import Foundation
import Testing
import TestSupport

@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// The predicate graph of ``FetchPredicateGraphDifferentialTests``, saved a third time into a PostgreSQL store:
/// every predicate must select the same objects there as in the SQLite store, and sorted fetches must come back
/// in the same order.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresStoreDifferentialTests {
    /// The graph on PostgreSQL, next to the shared SQLite/in-memory graph (same seed, same objects).
    final class Setup: @unchecked Sendable {
        let graph: PredicateGraph
        let postgres: PredicateGraph.Side
        let database: PostgresTestDatabase

        init(_ graph: PredicateGraph, _ postgres: PredicateGraph.Side, _ database: PostgresTestDatabase) {
            self.graph = graph
            self.postgres = postgres
            self.database = database
        }
    }

    /// Texts without U+0000, which PostgreSQL's text cannot hold (its store refuses to save them).
    static let strings = PredicateTestValues.strings.filter { !$0.utf8.contains(0) }

    static let setup = Result { () throws -> Setup in
        let graph = try PredicateGraph(strings: strings)
        let database = try PostgresTestDatabase()
        let coordinator = try database.coordinator(model: graph.model)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let model = graph.model
        try context.performAndWait {
            var random = SeededRandom(seed: 2024)
            try PredicateGraph.populate(context, people: 200, companies: 18, tags: 12, strings: strings, random: &random)
        }
        let side = try context.performAndWait { try PredicateGraph.side(context, model: model) }
        return Setup(graph, side, database)
    }

    @Test func handWrittenPredicatesAgreeWithSQLite() throws {
        let setup = try Self.setup.get()
        let (graph, postgres) = (setup.graph, setup.postgres)
        for (entity, format) in FetchPredicateGraphDifferentialTests.handWritten {
            let predicate = try FetchPredicate(format: format)
            let sqlite = try graph.fetch(predicate, entity: entity, on: graph.sqlite)
            let server = try graph.fetch(predicate, entity: entity, on: postgres)
            #expect(sqlite == server, "\(entity) where \(format): SQLite \(sqlite.count), PostgreSQL \(server.count)")
        }
    }

    @Test func randomPredicatesAgreeWithSQLite() throws {
        let setup = try Self.setup.get()
        let (graph, postgres) = (setup.graph, setup.postgres)
        var generator = PredicateGraphGenerator(random: SeededRandom(seed: 0x9057_6E5), counts: graph.counts)
        var problems: [String] = []
        for index in 0..<600 {
            let (entity, predicate) = generator.next()
            let sqlite = try graph.fetch(predicate, entity: entity, on: graph.sqlite)
            let server = try graph.fetch(predicate, entity: entity, on: postgres)
            if sqlite != server { problems.append("#\(index) \(entity) where \(predicate.predicateFormat)") }
            if problems.count >= 10 { break }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(arguments: [SortCriterion.Comparison.binary, .caseInsensitive, .caseAndDiacriticInsensitive, .localized])
    func sortedFetchesComeBackInTheSameOrder(comparison: SortCriterion.Comparison) throws {
        let setup = try Self.setup.get()
        let (graph, postgres) = (setup.graph, setup.postgres)
        func order(_ side: PredicateGraph.Side) throws -> [Int64] {
            let request = FetchRequest<ManagedObject>(entityName: "Person",
                sortCriteria: [SortCriterion("name", comparison: comparison), SortCriterion("serial")])
            let context = side.context
            return try context.performAndWait { try context.fetchObjectIDs(request) }.compactMap { side.serials[$0] }
        }
        let sqlite = try order(graph.sqlite)
        #expect(sqlite.count == graph.counts.people)
        #expect(try order(postgres) == sqlite)
    }
}

import Foundation
import Testing

@testable import ObjectGraph

/// Replays the predicate fuzzer's seed corpus (Fuzz/Corpus/PredicateParser, including every crash the fuzzer
/// found, once fixed) the way the fuzz target checks it: each input parses or fails with a positioned
/// error; what parses prints to a form that parses back to the same tree; and SQL, the in-memory store and
/// evaluation on the objects select the same people (or refuse the predicate alike).
@Suite struct FetchPredicateFuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/PredicateParser")

    static func inputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    static let graph = Result { try PredicateGraph(people: 30, companies: 4, tags: 4, seed: 77) }

    /// The fuzz target's arguments for the `%` specifiers, in turn.
    static func arguments() -> [any PredicateArgument] {
        ["name", 3, 2.5, "Zoë", ["Zoë", "zoe"], "company.name", 7, String?.none, "x' OR 1=1 --", [1, 2], "tags.name", true,
            Date(timeIntervalSinceReferenceDate: 42)]
    }

    /// Parses `format` as the fuzz target does: with as many arguments as it has specifiers.
    static func parse(_ format: String) -> Result<FetchPredicate, FetchPredicateError> {
        let pool = arguments()
        var count = min(format.filter { $0 == "%" }.count, 24)
        var last = FetchPredicateError(kind: .syntax, message: "no attempt")
        while count >= 0 {
            do {
                return .success(try FetchPredicate(format: format, argumentArray: (0..<count).map { pool[$0 % pool.count] }))
            } catch {
                last = error
                guard error.kind == .argument, error.message == "Too many arguments" else { break }
                count -= 1
            }
        }
        return .failure(last)
    }

    @Test func corpusIsThere() {
        #expect(Self.inputs().count >= 60)
        #expect(Self.inputs().contains { $0.hasPrefix("crash_") })
    }

    @Test(arguments: inputs())
    func inputBehaves(_ name: String) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
        let format = String(decoding: data, as: UTF8.self)
        let clock = ContinuousClock()
        let start = clock.now
        switch Self.parse(format) {
        case .failure(let error):
            #expect(!error.description.isEmpty)
            if let offset = error.offset { #expect(offset >= 0 && offset <= format.count, "\(name): \(error)") }
        case .success(let predicate):
            let reparsed = try FetchPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "\(name): \(predicate.predicateFormat)")
            let graph = try Self.graph.get()
            let sql = Result { try graph.fetch(predicate, entity: "Person", on: graph.sqlite) }
            let store = Result { try graph.fetch(predicate, entity: "Person", on: graph.memory) }
            let objects = Result { () throws -> Set<Int64> in
                try predicate.validate(for: try #require(graph.model.entity(named: "Person")), in: graph.model)
                return try graph.filter(predicate, entity: "Person")
            }
            switch (sql, store, objects) {
            case let (.success(a), .success(b), .success(c)):
                #expect(a == b && a == c, "\(name): \(predicate.predicateFormat)")
            case (.failure, .failure, .failure):
                break
            default:
                Issue.record("\(name): only some ways refused \(predicate.predicateFormat): \(sql) \(store) \(objects)")
            }
        }
        #expect(clock.now - start < .seconds(5), "\(name) is slow")
    }
}

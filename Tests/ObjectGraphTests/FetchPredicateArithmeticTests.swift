import Foundation
import Testing

@testable import ObjectGraph

/// Arithmetic in predicates (`age + 1 > 30`, `-score < 0`, `(age + 1) * 2`): parsing and printing, SQLite's
/// arithmetic reproduced in memory (integer overflow becomes a double, division is exact, division by
/// zero and non-numbers are nil), and SQL and memory agreeing on random expressions over the
/// awkward values of the differential table.
@Suite struct FetchPredicateArithmeticTests {
    @Test func parsesWithPrecedenceAndPrintsBack() throws {
        let cases: [(String, String)] = [
            ("age + 1 > 30", "(age + 1) > 30"),
            ("age + 2 * 3 == 7", "(age + (2 * 3)) == 7"),
            ("(age + 2) * 3 == 7", "((age + 2) * 3) == 7"),
            ("age - 1 - 2 < 0", "((age - 1) - 2) < 0"),
            ("-age > 3", "(0 - age) > 3"),
            ("-(age + 1) * 2 > 3", "((0 - (age + 1)) * 2) > 3"),
            ("score / 2 >= age - -5", "(score / 2) >= (age - -5)"),
            ("tags.@count * 2 > company.founded", "(tags.@count * 2) > company.founded"),
            ("tags[SIZE] > 2", "tags.@count > 2"),
            ("company.employees[size] + 1 >= 3", "(company.employees.@count + 1) >= 3"),
        ]
        for (format, printed) in cases {
            let predicate = try FetchPredicate(format: format)
            #expect(predicate.predicateFormat == printed, "\(format)")
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
        }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "age ** > 3") }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "age + > 3") }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "age + 1") }
    }

    @Test func followsSQLitesArithmetic() {
        typealias A = FetchPredicate.Arithmetic
        #expect(A.apply(.add, .integer(2), .integer(3)) == .integer(5))
        #expect(A.apply(.add, .integer(.max), .integer(1)) == .double(Double(Int64.max) + 1))
        #expect(A.apply(.divide, .integer(7), .integer(-2)) == .double(-3.5))
        #expect(A.apply(.divide, .integer(7), .integer(0)) == .null)
        #expect(A.apply(.divide, .double(7), .double(0)) == .null)
        #expect(A.apply(.divide, .integer(.min), .integer(-1)) == .double(-Double(Int64.min)))
        #expect(A.apply(.subtract, .double(.infinity), .double(.infinity)) == .null)
        #expect(A.apply(.multiply, .boolean(true), .integer(4)) == .integer(4))
        #expect(A.apply(.add, .string("42"), .integer(1)) == .null)
        #expect(A.apply(.add, .null, .integer(1)) == .null)
    }

    @Test func sqlAndMemoryAgreeOnRandomArithmetic() throws {
        let table = try PredicateTestTable()
        var random = PredicateTestRandom(seed: 0xA817)
        let keys = ["age", "score", "born", "active", "note", "name"]
        let constants: [AttributeValue] = [
            .integer(0), .integer(1), .integer(-1), .integer(3), .integer(.max), .integer(.min), .double(0.5),
            .double(-2.5), .double(.infinity), .double(0), .boolean(true), .string("42"), .null,
        ]
        func operand(_ depth: Int) -> FetchPredicate.Operand {
            if depth < 2, random.chance(0.5) {
                return .arithmetic(.init(
                    operand(depth + 1), random.pick(FetchPredicate.Arithmetic.Operation.allCases), operand(depth + 1)))
            }
            return random.chance(0.6) ? .key(random.pick(keys)) : .value(random.pick(constants))
        }
        var problems: [String] = []
        var selective = 0
        for _ in 0..<1_500 {
            let left = FetchPredicate.Operand.arithmetic(
                .init(operand(1), random.pick(FetchPredicate.Arithmetic.Operation.allCases), operand(1)))
            let right: FetchPredicate.Operand = random.chance(0.3) ? operand(1) : .value(random.pick(constants))
            let operation = random.pick([FetchPredicate.Operator.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo])
            let predicate = FetchPredicate.comparison(left, operation, right)
            let memory = table.memoryMatches(predicate)
            let sql = try table.sqlMatches(predicate)
            if memory != sql { problems.append(table.disagreement(predicate, memory: memory, sql: sql)) }
            if try FetchPredicate(format: predicate.predicateFormat) != predicate {
                problems.append("does not round-trip: \(predicate.predicateFormat)")
            }
            if !memory.isEmpty, memory.count < table.rows.count { selective += 1 }
            if problems.count >= 5 { break }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(selective > 300, "only \(selective) predicates select a proper subset")
    }

    /// Arithmetic through relationships, collection operators and subqueries: SQL, the in-memory store and
    /// evaluation on the objects agree on the predicate graph.
    @Test func arithmeticThroughRelationshipsAgreesEverywhere() throws {
        let graph = try FetchPredicateGraphDifferentialTests.graph.get()
        let formats = [
            "company.rating * 2 > 1", "tags.@count + friends.@count > 3", "-age < -10", "age / 4 > 2",
            "SUBQUERY(tags, $t, $t.weight * 2 > 3).@count > 0", "company.founded - age > 1980",
            "score * score >= age", "manager.age - age > 0", "tags.@sum.weight / tags.@count >= 2",
            "(age + 1) * (score - 1) != 0", "company.rating / 0 == nil AND age > 7",
        ]
        for format in formats {
            let predicate = try FetchPredicate(format: format)
            let (sql, store, objects) = try FetchPredicateGraphDifferentialTests.check(graph, "Person", predicate)
            #expect(sql == store && sql == objects, "\(format): SQL \(sql.count), store \(store.count), objects \(objects.count)")
            #expect(!sql.isEmpty && sql.count < graph.total("Person"), "\(format) selects \(sql.count)")
        }
        #expect("arithmetic on a to-many key path is refused") {
            try graph.fetch(try FetchPredicate(format: "tags.weight + 1 > 3"), entity: "Person", on: graph.sqlite)
        } throws: { error in
            "\(error)".contains("Arithmetic on something that is not a single value")
        }
    }
}

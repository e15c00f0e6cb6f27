import Foundation
import PropertyBased
import Testing
import TestSupport

@testable import ObjectGraph

/// Built-in functions in predicates (`FUNCTION(name, 'lowercase:')`, `abs(score)`, `now()`): parsing and
/// printing, the values they compute, typed errors for unknown functions and wrong argument counts, and SQL
/// and memory agreeing on random calls over the awkward values of the differential table (nils, every
/// storage class, NUL characters, infinities, the extreme integers).
@Suite struct FetchPredicateFunctionTests {
    typealias Function = FetchPredicate.FunctionCall.Function

    @Test func parsesBothSpellingsAndPrintsBack() throws {
        let cases: [(String, String)] = [
            ("FUNCTION(name, 'lowercase:') == 'zoë'", "FUNCTION(name, \"lowercase:\") == \"zoë\""),
            ("lowercase(name) == 'zoë'", "FUNCTION(name, \"lowercase:\") == \"zoë\""),
            ("UPPERCASE(name) == 'ZOË'", "FUNCTION(name, \"uppercase:\") == \"ZOË\""),
            ("FUNCTION(name, 'uppercaseString') == 'A'", "FUNCTION(name, \"uppercase:\") == \"A\""),
            ("FUNCTION(name, 'length') > 3", "FUNCTION(name, \"length\") > 3"),
            ("abs(score) >= 1", "FUNCTION(score, \"abs:\") >= 1"),
            ("FUNCTION(age, 'modulus:by:', 7) == 3", "FUNCTION(age, \"modulus:by:\", 7) == 3"),
            ("modulus(age, 7) == 3", "FUNCTION(age, \"modulus:by:\", 7) == 3"),
            ("FUNCTION(age, 'add:to:', score * 2) > 1", "FUNCTION(age, \"add:to:\", (score * 2)) > 1"),
            ("born < now()", "born < now()"),
            ("sqrt(abs(age)) + 1 > 2", "(FUNCTION(FUNCTION(age, \"abs:\"), \"sqrt:\") + 1) > 2"),
            ("noindex(age) == 3", "FUNCTION(age, \"noindex:\") == 3"),
            ("count(tags) > 1", "tags.@count > 1"),
            ("lowercase:(name) == 'a'", "FUNCTION(name, \"lowercase:\") == \"a\""),
            ("modulus:by:(age, 7) == 1", "FUNCTION(age, \"modulus:by:\", 7) == 1"),
            ("age * 2 ** 3 ** 2 > 1",
                "(age * FUNCTION(FUNCTION(2, \"raise:toPower:\", 3), \"raise:toPower:\", 2)) > 1"),
            ("FUNCTION(name, %@) == 'a'", "FUNCTION(name, \"lowercase:\") == \"a\""),
            ("SUBQUERY(tags, $t, lowercase($t.name) == 'swift').@count > 0",
                "SUBQUERY(tags, $t, FUNCTION($t.name, \"lowercase:\") == \"swift\").@count > 0"),
        ]
        for (format, printed) in cases {
            let predicate =
                format.contains("%@") ? try FetchPredicate(format: format, "lowercase:") : try FetchPredicate(format: format)
            #expect(predicate.predicateFormat == printed, "\(format)")
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(format)")
        }
    }

    @Test func unknownFunctionsAndWrongArgumentsAreTypedErrorsWithPositions() {
        let cases: [(format: String, offset: Int, kind: FetchPredicateError.Kind, text: String)] = [
            ("FUNCTION(name, 'reverse:') == 'x'", 15, .unsupported, "Unknown function 'reverse:'"),
            ("age > 1 AND frobnicate(name) == 'x'", 12, .unsupported, "Unknown function 'frobnicate'"),
            ("FUNCTION(name, 'random') == 1", 15, .unsupported, "Unknown function 'random'"),
            ("lowercase(name, age) == 'x'", 0, .syntax, "Function 'lowercase' takes 1 argument, not 2"),
            ("FUNCTION(age, 'modulus:by:') == 1", 14, .syntax, "Function 'modulus:by:' takes 2 arguments, not 1"),
            ("now(age) > 1", 0, .syntax, "takes 0 arguments"),
            ("FUNCTION(name) == 1", 13, .syntax, "expected ',' and the function's name"),
            ("FUNCTION(name, lowercase) == 1", 15, .syntax, "expected the function's name in quotes"),
            ("lowercase(name == 'x'", 15, .syntax, "Unexpected token '=='"),
            ("sum(tags.weight) > 1", 0, .unsupported, "tags.@sum.weight"),
            ("lowercase(name).length > 1", 15, .unsupported, "Key paths on values"),
            ("reverse:(name) == 'x'", 0, .unsupported, "Unknown function 'reverse:'"),
            ("lowercase: == 'x'", 0, .syntax, "Expected '(' after the function name 'lowercase:'"),
            ("name == 'a' AND add:to:(age) == 1", 16, .syntax, "Function 'add:to:' takes 2 arguments, not 1"),
        ]
        for (format, offset, kind, text) in cases {
            #expect(throws: FetchPredicateError.self, "\(format)") { try FetchPredicate(format: format) }
            do {
                _ = try FetchPredicate(format: format)
            } catch {
                #expect(error.kind == kind, "\(format): \(error)")
                #expect(error.offset == offset, "\(format): \(error)")
                #expect(error.description.contains(text), "\(format): \(error)")
            }
        }
    }

    @Test func computesCoreDatasValues() {
        let now = Date(timeIntervalSinceReferenceDate: 1_000)
        let cases: [(Function, [AttributeValue], AttributeValue)] = [
            (.lowercase, [.string("ZOË Straße")], .string("zoë straße")),
            (.uppercase, [.string("Straße")], .string("STRASSE")),
            (.uppercase, [.integer(3)], .null),
            (.length, [.string("👍🏽e\u{301}")], .integer(6)),
            (.abs, [.integer(-3)], .integer(3)),
            (.abs, [.integer(.min)], .double(-Double(Int64.min))),
            (.abs, [.double(-2.5)], .double(2.5)),
            (.abs, [.string("-3")], .null),
            (.sqrt, [.integer(-4)], .null),
            (.sqrt, [.integer(16)], .double(4)),
            (.floor, [.double(-2.5)], .double(-3)),
            (.ceiling, [.double(-2.5)], .double(-2)),
            (.trunc, [.double(-2.5)], .double(-2)),
            (.floor, [.integer(7)], .integer(7)),
            (.modulus, [.integer(-7), .integer(3)], .integer(-1)),
            (.modulus, [.integer(.min), .integer(-1)], .integer(0)),
            (.modulus, [.integer(7), .integer(0)], .null),
            (.modulus, [.double(7.5), .integer(2)], .double(1.5)),
            (.add, [.integer(.max), .integer(1)], .double(Double(Int64.max) + 1)),
            (.divide, [.integer(7), .integer(2)], .double(3.5)),
            (.raise, [.integer(2), .integer(10)], .double(1024)),
            (.log, [.integer(1000)], .double(3)),
            (.bitwiseAnd, [.integer(6), .integer(3)], .integer(2)),
            (.leftShift, [.integer(1), .integer(70)], .integer(0)),
            (.rightShift, [.integer(-8), .integer(1)], .integer(-4)),
            (.onesComplement, [.integer(0)], .integer(-1)),
            (.bitwiseOr, [.double(1), .integer(2)], .integer(3)),
            (.bitwiseOr, [.double(1.5), .integer(2)], .null),
            (.now, [], .date(now)),
            (.noindex, [.string("x")], .string("x")),
            (.abs, [.null], .null),
        ]
        for (function, arguments, expected) in cases {
            #expect(function.apply(to: arguments.map(Function.storedForm), now: now) == expected, "\(function) \(arguments)")
        }
    }

    /// A random function call over the table's columns and awkward constants, nested up to twice.
    static func call(_ random: inout SeededRandom, depth: Int = 0) -> FetchPredicate.Operand {
        let function = random.pick(Function.allCases.filter { $0 != .now })
        let arguments = (0..<function.argumentCount).map { _ in argument(&random, depth: depth) }
        return .function(.init(function, arguments))
    }

    static let constants: [AttributeValue] = [
        .integer(0), .integer(1), .integer(-1), .integer(3), .integer(64), .integer(.max), .integer(.min),
        .double(0.5), .double(-2.5), .double(.infinity), .boolean(true), .string("Zoë"), .string("42"), .null,
    ]

    static func argument(_ random: inout SeededRandom, depth: Int) -> FetchPredicate.Operand {
        if depth < 2, random.chance(0.25) { return call(&random, depth: depth + 1) }
        if random.chance(0.75) { return .key(random.pick(PredicateTestTable.columns).key) }
        return .value(random.pick(constants))
    }

    /// The value a comparison with the call's result is likely to discriminate with.
    static func comparand(_ random: inout SeededRandom, for function: Function, table: PredicateTestTable) -> AttributeValue {
        switch function {
        case .lowercase, .uppercase:
            let text = random.pick(PredicateTestValues.strings)
            return .string(function == .lowercase ? text.lowercased() : text.uppercased())
        case .length: return .integer(Int64(Int.random(in: 0...6, using: &random)))
        default:
            if random.chance(0.3), let row = table.rows.randomElement(using: &random) {
                return row[random.pick(PredicateTestTable.columns).key] ?? .null
            }
            return random.pick(constants + PredicateTestValues.integerValues + PredicateTestValues.doubleValues)
        }
    }

    @Test func sqlAndMemoryAgreeOnRandomCalls() async throws {
        let table = try PredicateTestTable()
        let problems = Locked<[String]>([])
        let selective = Locked(0)
        await propertyCheck(count: 1_500, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var random = SeededRandom(seed: UInt64(seed))
            let left = Self.call(&random)
            guard case .function(let call) = left else { return }
            let right = FetchPredicate.Operand.value(Self.comparand(&random, for: call.function, table: table))
            let operation = random.pick([FetchPredicate.Operator.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo,
                .beginsWith])
            let options = random.pick([FetchPredicate.ComparisonOptions(), [], [.caseInsensitive, .diacriticInsensitive]])
            let predicate = FetchPredicate(.comparison(.init(left, operation, right, options: options)))
            let memory = table.memoryMatches(predicate)
            do {
                let sql = try table.sqlMatches(predicate)
                if memory != sql {
                    problems.withLock { $0.append("seed \(seed): " + table.disagreement(predicate, memory: memory, sql: sql)) }
                }
                if try FetchPredicate(format: predicate.predicateFormat) != predicate {
                    problems.withLock { $0.append("seed \(seed) does not round-trip: \(predicate.predicateFormat)") }
                }
            } catch {
                problems.withLock { $0.append("seed \(seed) \(predicate.predicateFormat): \(error)") }
            }
            if !memory.isEmpty, memory.count < table.rows.count { selective.withLock { $0 += 1 } }
        }
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) problems\n\(found.prefix(5).joined(separator: "\n"))")
        #expect(selective.withLock { $0 } > 150, "only \(selective.withLock { $0 }) predicates select a proper subset")
    }

    @Test func nowIsTheCurrentDateInSQLAndInMemory() throws {
        let table = try PredicateTestTable()
        for format in ["born < now()", "born > now()", "FUNCTION(born, 'noindex:') < now()", "now() > CAST(0, 'NSDate')"] {
            let predicate = try FetchPredicate(format: format)
            let memory = table.memoryMatches(predicate)
            #expect(memory == (try table.sqlMatches(predicate)), "\(format)")
        }
    }
}

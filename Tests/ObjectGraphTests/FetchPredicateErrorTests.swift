import Foundation
import Testing

@testable import ObjectGraph

/// The error a format string produces, or nil (recorded as an issue) when it parses.
private func parseError(
    _ format: String, _ arguments: any PredicateArgument..., sourceLocation: SourceLocation = #_sourceLocation
) -> FetchPredicateError? {
    do {
        let predicate = try FetchPredicate(format: format, argumentArray: arguments)
        Issue.record("\(format) parsed as \(predicate.predicateFormat)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite struct FetchPredicateErrorTests {
    @Test func descriptionSaysWhatWhereAndWhy() throws {
        let error = try #require(parseError("age >> 3"))
        #expect(error.kind == .syntax)
        #expect(error.offset == 5)
        #expect(error.format == "age >> 3")
        #expect(error.description == "Unexpected token '>' at column 6 in \"age >> 3\": expected a value")
    }

    @Test(
        arguments: [
            // (format, offset, kind, message prefix)
            ("name == 'abc", 8, FetchPredicateError.Kind.syntax, "Unterminated string"),
            ("name == \"abc", 8, .syntax, "Unterminated string"),
            ("name == 'abc\\", 8, .syntax, "Unterminated string"),
            ("age >", 5, .syntax, "Unexpected end of input"),
            ("age > AND b == 1", 6, .syntax, "Unexpected token 'AND'"),
            ("age ~ 3", 4, .syntax, "Unexpected character '~'"),
            ("age FOO 3", 4, .syntax, "Unexpected token 'FOO'"),
            ("age 3", 4, .syntax, "Unexpected token '3'"),
            ("age === 3", 6, .syntax, "Unexpected token '='"),
            ("age > 3 AND", 11, .syntax, "Unexpected end of input"),
            ("age > 3 OR OR b == 1", 11, .syntax, "Unexpected token 'OR'"),
            ("AND age > 3", 0, .syntax, "Unexpected token 'AND'"),
            ("(age > 3", 8, .syntax, "Unexpected end of input"),
            ("((age > 3)", 10, .syntax, "Unexpected end of input"),
            ("age > 3)", 7, .syntax, "Unexpected token ')'"),
            ("age > (3", 8, .syntax, "Unexpected end of input"),
            ("age IN {1, 2", 12, .syntax, "Unexpected end of input"),
            ("age IN {1 2}", 10, .syntax, "Unexpected token '2'"),
            ("", 0, .syntax, "Unexpected end of input"),
            ("   ", 3, .syntax, "Unexpected end of input"),
            ("name ==[x] 'a'", 8, .unsupported, "Comparison option 'x'"),
            ("name ==[] 'a'", 8, .syntax, "Unexpected token ']'"),
            ("name == 'a' & b == 1", 12, .syntax, "Unexpected character '&'"),
            ("name == 'a\\xZZ'", 10, .syntax, "Invalid escape"),
            ("name == '\\uD800'", 9, .syntax, "Invalid escape"),
            ("name == %%", 8, .syntax, "Literal '%%'"),
            ("name == %", 8, .argument, "Incomplete format specifier"),
            ("name == %s", 8, .argument, "Unsupported format specifier '%s'"),
            ("$ == 1", 0, .syntax, "Expected a variable name"),
            ("# == 1", 0, .syntax, "Expected a key after '#'"),
            ("@count > 2", 0, .unsupported, "A collection operator before its collection"),
            ("@sum.items.price > 2", 0, .unsupported, "A collection operator before its collection"),
            ("items.@distinctUnionOfObjects.x == 1", 0, .unsupported, "The collection operator"),
            ("items.@count.x > 2", 0, .syntax, "Nothing may follow @count"),
            ("items.@sum > 2", 0, .syntax, "@sum needs a key after it"),
            ("items.@sum.@max.x > 2", 0, .unsupported, "Several collection operators"),
            ("items. == 2", 7, .syntax, "Unexpected token '=='"),
            ("items.3 == 2", 6, .syntax, "Unexpected token '3'"),
            ("'x'.length == 1", 3, .unsupported, "Key paths on values"),
            ("$V.name == 1", 0, .unsupported, "Key paths on a variable"),
            ("ANY", 3, .syntax, "Unexpected end of input"),
            ("ANY == 3", 4, .syntax, "Unexpected token '=='"),
            ("ANY 3 == 3", 6, .invalidValue, "ANY without a collection"),
            ("NONE SELF == %@", 13, .argument, "Missing argument"),
            ("ALL name", 8, .syntax, "Unexpected end of input"),
            ("SELF > 3", 5, .invalidValue, "Object compared with >"),
            ("SELF BEGINSWITH 'a'", 5, .invalidValue, "Object compared with BEGINSWITH"),
            ("SUBQUERY(x, $y, $y.a == 1) > 0", 27, .syntax, "SUBQUERY(…) must be followed by a collection operator"),
            ("SUBQUERY(x, $y, $y.a == 1).name > 0", 0, .syntax, "SUBQUERY(…) must be followed by a collection operator"),
            ("SUBQUERY('x', $y, $y.a == 1).@count > 0", 9, .syntax, "SUBQUERY needs a to-many key path"),
            ("SUBQUERY(x, y, y == 1).@count > 0", 12, .syntax, "Unexpected token 'y'"),
            ("SUBQUERY(x, $y, $y.a == 1.@count > 0", 25, .unsupported, "Key paths on values"),
            ("SUBQUERY(x, $y $y.a == 1).@count > 0", 15, .syntax, "Unexpected token '$y'"),
            ("SUBQUERY(x, $y, $y.a == 1).@count", 33, .syntax, "Unexpected end of input"),
            ("reverse(name) == 'x'", 0, .unsupported, "Unknown function 'reverse'"),
            ("age ** > 2", 7, .syntax, "Unexpected token '>'"),
            ("age + > 2", 6, .syntax, "Unexpected"),
            ("tags[0][1] == 'x'", 7, .unsupported, "Indexing"),
            ("tags.@count[FIRST] == 1", 11, .unsupported, "An index after a collection operator"),
            ("$x := 3", 3, .unsupported, "Assignment"),
            ("name ==[l] 'a'", 8, .unsupported, "Comparison option 'l'"),
            ("x == CAST('p1', 'NSManagedObjectID')", 5, .invalidValue, "Cannot CAST"),
            ("age BETWEEN {1}", 4, .invalidValue, "BETWEEN with 1 bounds"),
            ("age BETWEEN {1, 2, 3}", 4, .invalidValue, "BETWEEN with 3 bounds"),
            ("age BETWEEN 3", 4, .invalidValue, "BETWEEN without bounds"),
            ("age == {1, 2}", 4, .invalidValue, "Collection used with =="),
            ("{1} IN age", 4, .invalidValue, "Collection before IN"),
            ("age IN {{1}}", 4, .invalidValue, "Nested collection"),
            ("name MATCHES '('", 5, .invalidValue, "Invalid regular expression"),
            ("name MATCHES '[a-'", 5, .invalidValue, "Invalid regular expression"),
            ("x == 0xFFFFFFFFFFFFFFFFFF", 5, .invalidValue, "Number '0xFFFFFFFFFFFFFFFFFF' is too large"),
            ("x == CAST('nope', 'NSUUID')", 5, .invalidValue, "Cannot CAST"),
            ("x == CAST(1, 'NSColor')", 13, .unsupported, "CAST to 'NSColor'"),
            ("x == CAST(name, 'NSDate')", 10, .unsupported, "CAST of anything but a constant"),
            ("é == 1 AND é >", 14, .syntax, "Unexpected end of input"),
            ("e\u{301} == 'Zoe\u{308}' AND x >> 1", 18, .syntax, "Unexpected token '>'"),
            ("東京 == '東京' OR ~", 14, .syntax, "Unexpected character '~'"),
        ] as [(String, Int, FetchPredicateError.Kind, String)])
    func malformedInput(format: String, offset: Int, kind: FetchPredicateError.Kind, message: String) throws {
        let error = try #require(parseError(format))
        #expect(error.offset == offset, "\(error)")
        #expect(error.kind == kind, "\(error)")
        #expect(error.message.hasPrefix(message), "\(error)")
        #expect(error.format == format)
        #expect(error.description.contains("\"\(format)\""))
    }

    @Test func argumentMismatches() throws {
        let tooFew = try #require(parseError("a == %@ AND b == %@", 1))
        #expect(tooFew.kind == .argument)
        #expect(tooFew.offset == 17)
        #expect(tooFew.message == "Missing argument for %@")
        #expect(tooFew.reason == "the format needs at least 2 arguments but 1 were given")

        let none = try #require(parseError("age > %d"))
        #expect(none.kind == .argument)
        #expect(none.offset == 6)

        let tooMany = try #require(parseError("a == %@", 1, 2))
        #expect(tooMany.kind == .argument)
        #expect(tooMany.message == "Too many arguments")
        #expect(tooMany.reason == "the format uses 1 but 2 were given")

        // A quoted specifier consumes no argument.
        let quoted = try #require(parseError("a == '%@'", "x"))
        #expect(quoted.message == "Too many arguments")

        let wrongInteger = try #require(parseError("age > %d", "thirty"))
        #expect(wrongInteger.kind == .argument)
        #expect(wrongInteger.message == "Argument 1 for %d is not an integer")

        let wrongDouble = try #require(parseError("score > %f", "high"))
        #expect(wrongDouble.message == "Argument 1 for %f is not a number")

        let keyNotString = try #require(parseError("%K == 1", 42))
        #expect(keyNotString.kind == .argument)
        #expect(keyNotString.offset == 0)

        let hostileKey = try #require(parseError("name == 'a' OR %K == 1", "x' OR 1=1 --"))
        #expect(hostileKey.kind == .argument)
        #expect(hostileKey.offset == 15)
        #expect(hostileKey.message == "Argument 1 for %K is not a valid key")

        // A key path is fine for %K; a broken one is not.
        #expect(try FetchPredicate(format: "%K == 1", "department.name").referencedKeys == ["department.name"])
        let brokenPath = try #require(parseError("%K == 1", "department..name"))
        #expect(brokenPath.kind == .argument)

        let nan = try #require(parseError("score == %@", Double.nan))
        #expect(nan.kind == .invalidValue)

        let nested = try #require(parseError("x IN %@", [[1]]))
        #expect(nested.kind == .argument)
    }

    @Test func substitutionErrors() throws {
        let between = try FetchPredicate(format: "age BETWEEN $RANGE")
        #expect(throws: FetchPredicateError.self) { try between.withSubstitutionVariables(["RANGE": 3]) }

        let matches = try FetchPredicate(format: "name == 'x' OR name MATCHES $PATTERN")
        let error = try #require(throws: FetchPredicateError.self) {
            try matches.withSubstitutionVariables(["PATTERN": "(unclosed"])
        }
        #expect(error.kind == .invalidValue)
        #expect(error.offset == 28)
        #expect(error.message == "Invalid regular expression")

        let nan = try FetchPredicate(format: "score > $S")
        #expect(throws: FetchPredicateError.self) { try nan.withSubstitutionVariables(["S": .double(.nan)]) }

        // Unrelated variables are fine.
        #expect(try matches.withSubstitutionVariables(["OTHER": 1]) == matches)
    }

    @Test func unsubstitutedVariables() throws {
        let predicate = try FetchPredicate(format: "age > 3 AND name == $NAME")
        let error = try #require(throws: FetchPredicateError.self) { try predicate.checkAllVariablesSubstituted() }
        #expect(error.kind == .unsubstitutedVariable)
        #expect(error.offset == 20)
        #expect(
            error.description.hasPrefix("Variable '$NAME' has no value at column 21 in \"age > 3 AND name == $NAME\""))
        // Evaluation treats the comparison as unknown: it matches nothing, negated or not.
        #expect(predicate.evaluate { _ in .integer(5) } == false)
        #expect(FetchPredicate.not(predicate).evaluate { _ in .integer(5) } == false)
        let compileError = try #require(throws: FetchPredicateError.self) {
            try predicate.sqlExpression { "Z" + $0.uppercased() }
        }
        #expect(compileError.kind == .unsubstitutedVariable)
        #expect(compileError.offset == 20)
        try predicate.withSubstitutionVariables(["NAME": "x"]).checkAllVariablesSubstituted()
    }

    @Test func unknownKeysAreNamedWithTheirPosition() throws {
        let predicate = try FetchPredicate(format: "age > 3 AND shoeSize == 42")
        let error = try #require(throws: FetchPredicateError.self) {
            try predicate.sqlExpression { $0 == "age" ? "ZAGE" : nil }
        }
        #expect(error.kind == .unknownKey)
        #expect(error.offset == 12)
        #expect(
            error.description
                == "Unknown key 'shoeSize' at column 13 in \"age > 3 AND shoeSize == 42\": "
                + "the entity has no attribute of that name"
        )

        // After substitution the position still points into the original format string.
        let template = try FetchPredicate(format: "name == $N OR %K == 1", "bogus").withSubstitutionVariables(["N": "x"]
        )
        let templateError = try #require(throws: FetchPredicateError.self) {
            try template.sqlExpression { $0 == "name" ? "ZNAME" : nil }
        }
        #expect(templateError.offset == 14)

        // Keys from the builder have no position, but are still named.
        let built = FetchPredicate.key("bogus", .equalTo, 1)
        let builtError = try #require(throws: FetchPredicateError.self) { try built.sqlExpression { _ in nil } }
        #expect(builtError.offset == nil)
        #expect(builtError.description == "Unknown key 'bogus': the entity has no attribute of that name")

        // Invalid trees built by hand are refused at compile time too.
        let invalid = FetchPredicate.comparison(.key("age"), .between, .value(3))
        let invalidError = try #require(throws: FetchPredicateError.self) { try invalid.sqlExpression { _ in "ZAGE" } }
        #expect(invalidError.kind == .invalidValue)
        #expect(invalid.evaluate { _ in .integer(3) } == false)
    }

    @Test func nestingIsLimited() throws {
        let limit = FetchPredicate.Parser.maximumNesting
        let deep = String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit)
        #expect(try FetchPredicate(format: deep) == FetchPredicate(format: "a == 1"))
        let tooDeep = "(" + deep + ")"
        let error = try #require(parseError(tooDeep))
        #expect(error.message == "Nested too deeply")
        #expect(error.offset == limit)
        #expect(parseError(String(repeating: "(", count: 100_000))?.message == "Nested too deeply")
        #expect(parseError(String(repeating: "NOT ", count: 100_000) + "a == 1")?.message == "Nested too deeply")
        #expect(parseError("a IN " + String(repeating: "{", count: 100_000))?.message == "Nested too deeply")
        #expect(parseError("a == " + String(repeating: "(", count: 100_000) + "1")?.message == "Nested too deeply")
        // Unbalanced groups fail in linear time (a backtracking parser would take 2^60 steps here).
        #expect(parseError(String(repeating: "(", count: 60) + "a")?.message == "Unexpected end of input")
        #expect(parseError(String(repeating: "(", count: 60) + "a ==")?.message == "Unexpected end of input")
        #expect(
            try FetchPredicate(
                format: String(repeating: "(", count: 60) + "a" + String(repeating: ")", count: 60) + " == 1")
                == FetchPredicate(format: "a == 1"))
    }

    @Test func deepPredicatesFitASmallStack() throws {
        // Threads on Linux get 8 MiB stacks, but a library must not count on it (secondary threads elsewhere
        // get 512 KiB): parsing, printing, evaluating and compiling the deepest accepted predicate must fit
        // in 512 KiB even in a debug build, whose frames are the largest.
        let limit = FetchPredicate.Parser.maximumNesting
        let levels = (limit - 2) / 2  // each "NOT (" is two levels; the collection and "(2)" two more
        let format = String(repeating: "NOT (", count: levels) + "a IN {1, (2)}" + String(repeating: ")", count: levels)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome = ""
        let thread = Thread {
            do {
                let predicate = try FetchPredicate(format: format)
                let reparsed = try FetchPredicate(format: predicate.predicateFormat)
                let (sql, _) = try reparsed.sqlExpression { "Z" + $0.uppercased() }
                outcome = "\(predicate.evaluate { _ in .integer(1) }) \(sql.count > 0)"
            } catch {
                outcome = "\(error)"
            }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(outcome == "\(levels.isMultiple(of: 2)) true")
    }

    @Test func hostileInputNeverTraps() throws {
        // A few thousand mutations of valid predicates: each parses or throws, and whatever parses prints,
        // re-parses to an equal tree and compiles.
        let seeds = [
            "age > 3 AND name BEGINSWITH[cd] 'zo'", "NOT (a IN {1, 'x', nil}) OR b BETWEEN {1, 2}",
            "name MATCHES '\\\\d+' && x LIKE 'a*?'", "x == CAST(1, 'NSDate') || $V != \"q\"", "#size == -0x1F",
        ]
        let alphabet = Array("()[]{}'\"\\%@K$#=!<>&|,.-+*/0123456789eE xyzANDORNOTINcd\u{0}é東\n")
        var random = PredicateTestRandom(seed: 7)
        var parsed = 0
        for _ in 0..<3_000 {
            var characters = Array(random.pick(seeds))
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0...characters.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: characters.insert(random.pick(alphabet), at: position)
                case 1: if position < characters.count { characters.remove(at: position) }
                default: if position < characters.count { characters[position] = random.pick(alphabet) }
                }
            }
            let format = String(characters)
            do {
                let predicate = try FetchPredicate(format: format)
                parsed += 1
                _ = try? FetchPredicate(format: predicate.predicateFormat)
                _ = try? predicate.sqlExpression { "Z" + $0.uppercased() }
                _ = predicate.evaluate { _ in .string("x") }
            } catch {
                if let offset = error.offset { #expect(offset >= 0 && offset <= format.count, "\(error)") }
            }
        }
        #expect(parsed > 0)
    }
}

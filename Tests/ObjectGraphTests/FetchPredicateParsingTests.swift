import Foundation
import Testing

@testable import ObjectGraph

/// Shorthands for expected trees.
private func key(_ name: String) -> FetchPredicate.Operand { .key(name) }
private func value(_ value: AttributeValue) -> FetchPredicate.Operand { .value(value) }
private func compare(
    _ left: FetchPredicate.Operand, _ operation: FetchPredicate.Operator, _ right: FetchPredicate.Operand,
    _ options: FetchPredicate.ComparisonOptions = []
) -> FetchPredicate.Node {
    .comparison(.init(left, operation, right, options: options))
}

@Suite struct FetchPredicateParsingTests {
    // MARK: Comparisons

    @Test(arguments: [
        ("age == 3", FetchPredicate.Operator.equalTo), ("age = 3", .equalTo), ("age != 3", .notEqualTo),
        ("age <> 3", .notEqualTo), ("age < 3", .lessThan), ("age <= 3", .lessThanOrEqualTo),
        ("age =< 3", .lessThanOrEqualTo), ("age > 3", .greaterThan), ("age >= 3", .greaterThanOrEqualTo),
        ("age => 3", .greaterThanOrEqualTo), ("age BEGINSWITH 3", .beginsWith), ("age ENDSWITH 3", .endsWith),
        ("age CONTAINS 3", .contains), ("age LIKE 3", .like), ("age MATCHES '3'", .matches),
        ("age<3", .lessThan), ("age>=3", .greaterThanOrEqualTo), ("age==3", .equalTo),
    ])
    func operatorsAndSynonyms(format: String, operation: FetchPredicate.Operator) throws {
        let expected: FetchPredicate.Operand = operation == .matches ? value("3") : value(3)
        #expect(try FetchPredicate(format: format).node == compare(key("age"), operation, expected))
    }

    @Test func inAndBetween() throws {
        #expect(
            try FetchPredicate(format: "age IN {1, 2, 3}").node
                == compare(key("age"), .in, .aggregate([value(1), value(2), value(3)])))
        #expect(try FetchPredicate(format: "age IN {}").node == compare(key("age"), .in, .aggregate([])))
        #expect(
            try FetchPredicate(format: "age BETWEEN {18, 65}").node
                == compare(key("age"), .between, .aggregate([value(18), value(65)])))
        #expect(
            try FetchPredicate(format: "age IN %@", [1, 2]).node
                == compare(key("age"), .in, .aggregate([value(1), value(2)])))
        #expect(
            try FetchPredicate(format: "name IN %@", Set(["b", "a"])).node
                == compare(key("name"), .in, .aggregate([value("a"), value("b")])))
        #expect(try FetchPredicate(format: "'x' IN name").node == compare(value("x"), .in, key("name")))
        #expect(
            try FetchPredicate(format: "{1, 2} CONTAINS age").node
                == compare(.aggregate([value(1), value(2)]), .contains, key("age")))
        #expect(
            try FetchPredicate(format: "age BETWEEN %@", [1, 9]).node
                == compare(key("age"), .between, .aggregate([value(1), value(9)])))
    }

    @Test(
        arguments: [
            ("name ==[c] 'x'", FetchPredicate.ComparisonOptions.caseInsensitive),
            ("name ==[d] 'x'", .diacriticInsensitive), ("name ==[cd] 'x'", [.caseInsensitive, .diacriticInsensitive]),
            ("name ==[dc] 'x'", [.caseInsensitive, .diacriticInsensitive]),
            ("name ==[CD] 'x'", [.caseInsensitive, .diacriticInsensitive]),
            ("name == [ c ] 'x'", .caseInsensitive),
            ("name BEGINSWITH[cd] 'x'", [.caseInsensitive, .diacriticInsensitive]),
            ("name == 'x'", []),
        ] as [(String, FetchPredicate.ComparisonOptions)])
    func modifiers(format: String, options: FetchPredicate.ComparisonOptions) throws {
        guard case .comparison(let comparison) = try FetchPredicate(format: format).node else {
            Issue.record("not a comparison")
            return
        }
        #expect(comparison.options == options)
    }

    @Test func eitherSideMayBeTheKey() throws {
        #expect(try FetchPredicate(format: "3 < age").node == compare(value(3), .lessThan, key("age")))
        #expect(try FetchPredicate(format: "age > name").node == compare(key("age"), .greaterThan, key("name")))
        // `3 < age` and `age > 3` select the same objects.
        let flipped = try FetchPredicate(format: "3 < age")
        let plain = try FetchPredicate(format: "age > 3")
        for age: Int64 in [2, 3, 4] {
            #expect(flipped.evaluate { _ in .integer(age) } == plain.evaluate { _ in .integer(age) })
        }
    }

    // MARK: Values

    @Test(arguments: [
        ("x == 42", AttributeValue.integer(42)), ("x == -42", .integer(-42)), ("x == 3.5", .double(3.5)),
        ("x == -3.5", .double(-3.5)), ("x == 1e3", .double(1000)), ("x == 2.5E-2", .double(0.025)),
        ("x == 1e+2", .double(100)), ("x == 0x1F", .integer(31)), ("x == 0o17", .integer(15)),
        ("x == 0b101", .integer(5)),
        ("x == -9223372036854775808", .integer(.min)), ("x == 9223372036854775807", .integer(.max)),
        ("x == 99999999999999999999", .double(1e20)), ("x == nil", .null), ("x == NIL", .null), ("x == null", .null),
        ("x == YES", .boolean(true)), ("x == yes", .boolean(true)), ("x == TRUE", .boolean(true)),
        ("x == NO", .boolean(false)), ("x == false", .boolean(false)), ("x == 'single'", .string("single")),
        ("x == \"double\"", .string("double")), ("x == 'it\\'s'", .string("it's")),
        ("x == \"say \\\"hi\\\"\"", .string("say \"hi\"")),
        ("x == 'a\\nb\\tc\\\\d'", .string("a\nb\tc\\d")), ("x == '\\x41\\u00e9\\101'", .string("Aé" + "A")),
        ("x == '\\uD83D\\uDC4D'", .string("👍")), ("x == '\\d+'", .string("\\d+")), ("x == ''", .string("")),
        ("x == 'Zoë 東京'", .string("Zoë 東京")), ("x == \"it's\"", .string("it's")),
        ("x == CAST(42.5, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 42.5))),
        ("x == CAST(-1, \"NSDate\")", .date(Date(timeIntervalSinceReferenceDate: -1))),
        ("x == CAST('AAEC', 'NSData')", .binary(Data([0, 1, 2]))),
        ("x == CAST('https://example.org/a', 'NSURL')", .uri(URL(string: "https://example.org/a")!)),
    ])
    func literals(format: String, expected: AttributeValue) throws {
        #expect(try FetchPredicate(format: format).node == compare(key("x"), .equalTo, value(expected)))
    }

    @Test func uuidCast() throws {
        let uuid = UUID()
        #expect(
            try FetchPredicate(format: "x == CAST('\(uuid.uuidString)', 'NSUUID')").node
                == compare(key("x"), .equalTo, value(.uuid(uuid))))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let expected = try FetchPredicate(format: "NOT a == 1 AND b BEGINSWITH 'x' OR c IN {1}")
        #expect(try FetchPredicate(format: "nOt a == 1 aNd b beginsWith 'x' oR c in {1}") == expected)
        #expect(try FetchPredicate(format: "truepredicate").node == .truePredicate)
        #expect(try FetchPredicate(format: "FALSEpredicate").node == .falsePredicate)
    }

    @Test func reservedWordsAsKeys() throws {
        #expect(try FetchPredicate(format: "#size == 3").node == compare(key("size"), .equalTo, value(3)))
        #expect(try FetchPredicate(format: "#like LIKE 'like'").node == compare(key("like"), .like, value("like")))
        #expect(try FetchPredicate(format: "%K == 3", "size").node == compare(key("size"), .equalTo, value(3)))
        #expect(FetchPredicate.key("in", .equalTo, 3).predicateFormat == "#in == 3")
    }

    @Test func unicodeKeys() throws {
        #expect(try FetchPredicate(format: "名前 == 'x'").node == compare(key("名前"), .equalTo, value("x")))
        #expect(try FetchPredicate(format: "_private2 == 1").node == compare(key("_private2"), .equalTo, value(1)))
        #expect(try FetchPredicate(format: "ﬁrst == 1").node == compare(key("ﬁrst"), .equalTo, value(1)))
        #expect(FetchPredicate.key("ﬁrst", .equalTo, 1).predicateFormat == "ﬁrst == 1")
    }

    // MARK: Logic and precedence

    @Test func logicalOperatorsAndSynonyms() throws {
        let a = compare(key("a"), .equalTo, value(1))
        let b = compare(key("b"), .equalTo, value(2))
        #expect(try FetchPredicate(format: "a == 1 AND b == 2").node == .and([a, b]))
        #expect(try FetchPredicate(format: "a == 1 && b == 2").node == .and([a, b]))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2").node == .or([a, b]))
        #expect(try FetchPredicate(format: "a == 1 || b == 2").node == .or([a, b]))
        #expect(try FetchPredicate(format: "NOT a == 1").node == .not(a))
        #expect(try FetchPredicate(format: "!a == 1").node == .not(a))
        #expect(try FetchPredicate(format: "! (a == 1)").node == .not(a))
        #expect(try FetchPredicate(format: "NOT NOT a == 1").node == .not(.not(a)))
        #expect(try FetchPredicate(format: "((a == 1))").node == a)
        #expect(try FetchPredicate(format: "(a) == 1").node == a)
        #expect(
            try FetchPredicate(format: "TRUEPREDICATE AND FALSEPREDICATE").node
                == .and([.truePredicate, .falsePredicate]))
    }

    @Test func precedenceIsNotThenAndThenOr() throws {
        let a = compare(key("a"), .equalTo, value(1))
        let b = compare(key("b"), .equalTo, value(2))
        let c = compare(key("c"), .equalTo, value(3))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 AND c == 3").node == .or([a, .and([b, c])]))
        #expect(try FetchPredicate(format: "a == 1 AND b == 2 OR c == 3").node == .or([.and([a, b]), c]))
        #expect(try FetchPredicate(format: "NOT a == 1 AND b == 2").node == .and([.not(a), b]))
        #expect(try FetchPredicate(format: "NOT (a == 1 AND b == 2)").node == .not(.and([a, b])))
        #expect(try FetchPredicate(format: "(a == 1 OR b == 2) AND c == 3").node == .and([.or([a, b]), c]))
        // Chains flatten; parentheses keep their grouping.
        #expect(try FetchPredicate(format: "a == 1 AND b == 2 AND c == 3").node == .and([a, b, c]))
        #expect(try FetchPredicate(format: "a == 1 AND (b == 2 AND c == 3)").node == .and([a, .and([b, c])]))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 OR c == 3").node == .or([a, b, c]))
    }

    // MARK: Substitution

    @Test func formatSpecifiers() throws {
        #expect(try FetchPredicate(format: "name == %@", "Zoë").node == compare(key("name"), .equalTo, value("Zoë")))
        #expect(
            try FetchPredicate(format: "%K == %@", "name", "Zoë").node
                == compare(key("name"), .equalTo, value("Zoë")))
        #expect(try FetchPredicate(format: "age > %d", 30).node == compare(key("age"), .greaterThan, value(30)))
        #expect(try FetchPredicate(format: "age > %i", Int32(30)).node == compare(key("age"), .greaterThan, value(30)))
        #expect(try FetchPredicate(format: "age > %ld", 30).node == compare(key("age"), .greaterThan, value(30)))
        #expect(
            try FetchPredicate(format: "age > %lld", Int64(30)).node == compare(key("age"), .greaterThan, value(30)))
        #expect(try FetchPredicate(format: "age > %u", UInt32(30)).node == compare(key("age"), .greaterThan, value(30)))
        #expect(try FetchPredicate(format: "score > %f", 2.5).node == compare(key("score"), .greaterThan, value(2.5)))
        #expect(try FetchPredicate(format: "score > %lf", 2).node == compare(key("score"), .greaterThan, value(2.0)))
        #expect(try FetchPredicate(format: "score > %.2f", 2.5).node == compare(key("score"), .greaterThan, value(2.5)))
        #expect(try FetchPredicate(format: "age > -%d", 3).node == compare(key("age"), .greaterThan, value(-3)))
        #expect(try FetchPredicate(format: "flag == %d", true).node == compare(key("flag"), .equalTo, value(1)))
        #expect(
            try FetchPredicate(format: "flag == %@", true).node == compare(key("flag"), .equalTo, value(.boolean(true)))
        )
        #expect(
            try FetchPredicate(format: "name == %@", nil as String?).node
                == compare(key("name"), .equalTo, value(.null)))
        #expect(
            try FetchPredicate(format: "d == %@", Decimal(string: "2.5")!).node
                == compare(key("d"), .equalTo, value(2.5)))
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        #expect(
            try FetchPredicate(format: "born < %@", date).node == compare(key("born"), .lessThan, value(.date(date))))
        let uuid = UUID()
        #expect(try FetchPredicate(format: "id == %@", uuid).node == compare(key("id"), .equalTo, value(.uuid(uuid))))
        #expect(
            try FetchPredicate(format: "blob == %@", Data([1, 2])).node
                == compare(key("blob"), .equalTo, value(.binary(Data([1, 2])))))
        #expect(
            try FetchPredicate(format: "name == %@", AttributeValue.string("x")).node
                == compare(key("name"), .equalTo, value("x")))
        #expect(
            try FetchPredicate(format: "a == %@ AND b == %@", argumentArray: [1, "two"]).node
                == .and([compare(key("a"), .equalTo, value(1)), compare(key("b"), .equalTo, value("two"))]))
    }

    @Test func specifiersInsideQuotesAreLiteral() throws {
        #expect(try FetchPredicate(format: "name == '%@'").node == compare(key("name"), .equalTo, value("%@")))
        #expect(
            try FetchPredicate(format: "name == \"%K %d %%\"").node == compare(key("name"), .equalTo, value("%K %d %%"))
        )
        #expect(
            try FetchPredicate(format: "name == '%@' OR name == %@", "x").node
                == .or([compare(key("name"), .equalTo, value("%@")), compare(key("name"), .equalTo, value("x"))]))
    }

    @Test func substitutedStringsAreNeverParsed() throws {
        let hostile = "x' OR 1=1 --"
        #expect(
            try FetchPredicate(format: "name == %@", hostile).node
                == compare(key("name"), .equalTo, value(.string(hostile))))
        #expect(try FetchPredicate(format: "name == %@", "$VAR").node == compare(key("name"), .equalTo, value("$VAR")))
        #expect(try FetchPredicate(format: "name == %@", "%@").node == compare(key("name"), .equalTo, value("%@")))
    }

    @Test func variables() throws {
        let predicate = try FetchPredicate(format: "name == $NAME AND age > $minAge")
        #expect(predicate.variableNames == ["NAME", "minAge"])
        #expect(
            predicate.node
                == .and([
                    compare(key("name"), .equalTo, .variable("NAME")),
                    compare(key("age"), .greaterThan, .variable("minAge")),
                ]))
        let filled = try predicate.withSubstitutionVariables(["NAME": "Zoë", "minAge": 30])
        #expect(filled == (try FetchPredicate(format: "name == 'Zoë' AND age > 30")))
        #expect(filled.variableNames.isEmpty)
        // Partial substitution leaves the rest for later.
        let partial = try predicate.withSubstitutionVariables(["NAME": "Zoë"])
        #expect(partial.variableNames == ["minAge"])
        #expect(try partial.withSubstitutionVariables(["minAge": 30]) == filled)
        // Variables inside collections.
        let between = try FetchPredicate(format: "age BETWEEN {$LO, $HI}").withSubstitutionVariables(["LO": 1, "HI": 9])
        #expect(between == (try FetchPredicate(format: "age BETWEEN {1, 9}")))
    }

    @Test func referencedKeys() throws {
        #expect(
            try FetchPredicate(format: "a == 1 AND (b < c OR NOT d IN {e, 2}) AND $V == f").referencedKeys == [
                "a", "b", "c", "d", "e", "f",
            ])
        #expect(FetchPredicate.truePredicate.referencedKeys.isEmpty)
        #expect(try FetchPredicate(format: "%K BEGINSWITH 'x'", "lastName").referencedKeys == ["lastName"])
    }

    // MARK: Builder

    @Test func builderMatchesParser() throws {
        #expect(FetchPredicate.key("age", .greaterThan, 30) == (try FetchPredicate(format: "age > 30")))
        #expect(
            FetchPredicate.key("name", .beginsWith, "zo", options: [.caseInsensitive, .diacriticInsensitive])
                == (try FetchPredicate(format: "name BEGINSWITH[cd] 'zo'")))
        #expect(FetchPredicate.key("age", in: [1, 2]) == (try FetchPredicate(format: "age IN {1, 2}")))
        #expect(FetchPredicate.key("age", between: 1, and: 9) == (try FetchPredicate(format: "age BETWEEN {1, 9}")))
        #expect(
            FetchPredicate.comparison(.value(3), .lessThan, .key("age")) == (try FetchPredicate(format: "3 < age")))
        let a = FetchPredicate.key("a", .equalTo, 1)
        let b = FetchPredicate.key("b", .equalTo, 2)
        #expect(FetchPredicate.and([a, b]) == (try FetchPredicate(format: "a == 1 AND b == 2")))
        #expect(FetchPredicate.or([a, b]) == (try FetchPredicate(format: "a == 1 OR b == 2")))
        #expect(FetchPredicate.not(a) == (try FetchPredicate(format: "NOT a == 1")))
        #expect(FetchPredicate.and([]) == .truePredicate)
        #expect(FetchPredicate.or([]) == .falsePredicate)
        #expect(FetchPredicate.and([a]) == a)
        #expect(FetchPredicate(.and([.or([])])) == .falsePredicate)
        #expect(FetchPredicate.key("d", .equalTo, .decimal(2.5)) == FetchPredicate.key("d", .equalTo, .double(2.5)))
    }

    @Test func sourceLocationsDoNotAffectEquality() throws {
        let spaced = try FetchPredicate(format: "   name    ==   'x'")
        #expect(spaced == FetchPredicate.key("name", .equalTo, "x"))
        #expect(spaced.hashValue == FetchPredicate.key("name", .equalTo, "x").hashValue)
    }

    // MARK: Canonical format

    @Test(arguments: [
        ("age > 3", "age > 3"),
        ("age=3", "age == 3"),
        ("age <> 3", "age != 3"),
        ("age => 3", "age >= 3"),
        ("name beginswith[dc] 'Zo'", "name BEGINSWITH[cd] \"Zo\""),
        ("a == 1 or b == 2 and c == 3", "a == 1 OR (b == 2 AND c == 3)"),
        ("(a == 1 or b == 2) and c == 3", "(a == 1 OR b == 2) AND c == 3"),
        ("not a == 1 && !(b == 2)", "NOT (a == 1) AND NOT (b == 2)"),
        ("name == 'it\\'s \"q\"\\n'", "name == \"it's \\\"q\\\"\\n\""),
        ("x == nil", "x == nil"),
        ("x == yes", "x == YES"),
        ("x == 3.0", "x == 3.0"),
        ("x == 1e20", "x == 1e+20"),
        ("x == 1e999", "x == 1e999"),
        ("x IN {1, 'a', nil}", "x IN {1, \"a\", nil}"),
        ("x == $V", "x == $V"),
        ("#size == 1", "#size == 1"),
        ("x == CAST(42, 'NSDate')", "x == CAST(42.0, \"NSDate\")"),
        ("truepredicate", "TRUEPREDICATE"),
        ("x == '\\u0001\\u00e9'", "x == \"\\u0001é\""),
    ])
    func canonicalFormat(format: String, canonical: String) throws {
        let predicate = try FetchPredicate(format: format)
        #expect(predicate.predicateFormat == canonical)
        #expect(predicate.description == canonical)
        #expect(try FetchPredicate(format: canonical) == predicate)
    }

    @Test(arguments: [
        "TRUEPREDICATE", "FALSEPREDICATE", "age > 3 AND (name BEGINSWITH[cd] 'zo' OR NOT nickname == nil)",
        "a == 1 AND (b == 2 AND c == 3)", "NOT (NOT (a == 1))", "3 < age", "x == -0.0", "x == -1e999",
        "x == 5e-324", "x == 1.7976931348623157e308", "x == -9223372036854775808", "name == 'a\\\\b\\'c\"d\\t\\r\\0e'",
        "name IN {}", "x BETWEEN {CAST(-1.5, 'NSDate'), CAST(2, 'NSDate')}", "x == CAST('', 'NSData')",
        "x == CAST('AP8=', 'NSData')", "name == 'Zoe\u{308} 東京 👍🏽'", "{1, 2} CONTAINS x", "'a' IN x",
        "name MATCHES[c] '\\\\d+'", "name LIKE 'a\\\\*'",
    ])
    func roundTrip(format: String) throws {
        let predicate = try FetchPredicate(format: format)
        let printed = predicate.predicateFormat
        let reparsed = try FetchPredicate(format: printed)
        #expect(reparsed == predicate, "\(format) printed as \(printed)")
        #expect(reparsed.predicateFormat == printed)
    }

    @Test func roundTripOfSubstitutedValues() throws {
        let values: [any PredicateArgument] = [
            "x' OR 1=1 --", "\"; DROP TABLE t; --", "a\u{0}b", "line\nbreak", "\u{7F}\u{1B}",
            Date(timeIntervalSinceReferenceDate: 0.1),
            UUID(), Data([0, 255, 7]), URL(string: "https://example.org/Zo%C3%AB?q=1")!, Double.infinity,
            -Double.infinity, Double.leastNonzeroMagnitude, Int64.min, true, 0.1, "\u{200B}\u{FEFF}",
        ]
        for argument in values {
            let predicate = try FetchPredicate(format: "x == %@", argument)
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(predicate.predicateFormat)")
        }
    }
}

import Foundation
import Testing

@testable import ObjectGraph

/// Whether `format` holds for an object with `values`; missing keys are nil.
private func holds(
    _ format: String, _ values: [String: AttributeValue], _ arguments: any PredicateArgument...
) throws -> Bool {
    try FetchPredicate(format: format, argumentArray: arguments).evaluate { values[$0] ?? .null }
}

@Suite struct FetchPredicateEvaluationTests {
    @Test func nilSemantics() throws {
        let nobody: [String: AttributeValue] = [:]
        #expect(try holds("age == nil", nobody))
        #expect(try !holds("age != nil", nobody))
        #expect(try holds("age != 3", nobody))  // != is two-valued: nil is not 3
        #expect(try !holds("age == 3", nobody))
        #expect(try !holds("age > 3", nobody))  // unknown …
        #expect(try !holds("NOT (age > 3)", nobody))  // … stays unknown when negated
        #expect(try !holds("NOT (age BETWEEN {1, 5})", nobody))
        #expect(try !holds("NOT (name BEGINSWITH 'a')", nobody))
        #expect(try holds("NOT (name BEGINSWITH 'a') OR age == nil", nobody))
        #expect(try !holds("age > 3 OR NOT (age > 3)", nobody))
        #expect(try holds("age IN {1, nil}", nobody))
        #expect(try !holds("age IN {1, 2}", nobody))
        #expect(try holds("NOT (age IN {1, 2})", nobody))
        #expect(try holds("age == nickname", nobody))  // nil equals nil
        #expect(try !holds("age > nil", ["age": 3]))
        #expect(try !holds("NOT (age > nil)", ["age": 3]))
        // A non-string side makes a string operator false even when the other side is nil.
        #expect(try holds("NOT (name BEGINSWITH 5)", nobody))
    }

    @Test func stringEqualityIsByteEquality() throws {
        let composed: [String: AttributeValue] = ["name": "Zoë"]
        #expect(try holds("name == 'Zoë'", composed))
        #expect(try !holds("name == 'Zoe\u{308}'", composed))  // Swift's == would say equal
        #expect(try holds("name ==[d] 'Zoe\u{308}'", composed))
        #expect(try holds("name ==[d] 'Zoe'", composed))
        #expect(try !holds("name ==[d] 'zoe'", composed))
        #expect(try holds("name ==[c] 'ZOË'", composed))
        #expect(try !holds("name ==[c] 'ZOE'", composed))
        #expect(try holds("name ==[cd] 'ZOE'", composed))
        #expect(try holds("name ==[cd] 'zoe\u{308}'", composed))
        #expect(try holds("name ==[cd] 'strasse'", ["name": "Straße"]))
        #expect(try holds("name ==[cd] 'aeroskobing'", ["name": "Ærøskøbing"]))
        #expect(try holds("name ==[d] 'Lodz'", ["name": "Łódź"]))
        #expect(try !holds("name ==[d] 'lodz'", ["name": "Łódź"]))
        #expect(try holds("name ==[c] '東京'", ["name": "東京"]))
        #expect(try !holds("name == 'a'", ["name": "a\u{0}b"]))
    }

    @Test func orderingComparesWithinAKind() throws {
        #expect(try holds("age > 3", ["age": 4]))
        #expect(try holds("age > 3.5", ["age": 4]))
        #expect(try holds("age >= 4.0", ["age": 4]))
        #expect(try holds("age == 4.0", ["age": 4]))
        #expect(try holds("age == 9007199254740993", ["age": .integer(9_007_199_254_740_993)]))
        #expect(try !holds("age == 9007199254740992.0", ["age": .integer(9_007_199_254_740_993)]))
        #expect(try holds("age > 9007199254740992.0", ["age": .integer(9_007_199_254_740_993)]))
        #expect(try holds("name < 'b'", ["name": "a"]))
        #expect(try holds("name < 'a'", ["name": "B"]))  // bytes: 'B' < 'a'
        #expect(try holds("name <[c] 'b'", ["name": "B"]) == false)
        #expect(try holds("name < '1'", ["name": "01"]))
        // Values of different kinds are neither equal nor ordered.
        #expect(try !holds("age == '42'", ["age": 42]))
        #expect(try !holds("age < 'abc'", ["age": 42]))
        #expect(try holds("NOT (age < 'abc')", ["age": 42]))
        #expect(try !holds("name > 5", ["name": "x"]))
        #expect(try !holds("badge == 'x'", ["badge": .binary(Data("x".utf8))]))
        // Booleans are the numbers 0 and 1; dates are seconds since 2001.
        #expect(try holds("active == 1", ["active": .boolean(true)]))
        #expect(try holds("active == YES", ["active": .integer(1)]))
        #expect(try holds("active < 1", ["active": .boolean(false)]))
        #expect(try holds("born == 42", ["born": .date(Date(timeIntervalSinceReferenceDate: 42))]))
        #expect(
            try holds(
                "born > %@", ["born": .date(Date(timeIntervalSinceReferenceDate: 42))],
                Date(timeIntervalSinceReferenceDate: 0)))
        // URLs compare as their text; UUIDs as their bytes.
        #expect(try holds("home BEGINSWITH 'https:'", ["home": .uri(URL(string: "https://example.org")!)]))
        let uuid = UUID()
        #expect(try holds("id == %@", ["id": .uuid(uuid)], uuid))
    }

    @Test func stringOperators() throws {
        let zoe: [String: AttributeValue] = ["name": "Zoë Ærø"]
        #expect(try holds("name BEGINSWITH 'Zo'", zoe))
        #expect(try !holds("name BEGINSWITH 'zo'", zoe))
        #expect(try holds("name BEGINSWITH[c] 'zo'", zoe))
        #expect(try holds("name BEGINSWITH[cd] 'ZOE'", zoe))
        #expect(try holds("name ENDSWITH 'rø'", zoe))
        #expect(try holds("name ENDSWITH[cd] 'AERO'", zoe))
        #expect(try holds("name CONTAINS 'ë Æ'", zoe))
        #expect(try holds("name CONTAINS[cd] 'E AE'", zoe))
        #expect(try holds("name CONTAINS ''", zoe))
        #expect(try holds("name BEGINSWITH ''", zoe))
        #expect(try holds("name ENDSWITH ''", zoe))
        #expect(try !holds("name CONTAINS 'e'", ["name": "Zoë"]))
        // Byte semantics: a decomposed ë contains a plain e.
        #expect(try holds("name CONTAINS 'e'", ["name": "Zoe\u{308}"]))
        #expect(try holds("name BEGINSWITH 'a'", ["name": "a\u{0}b"]))
        #expect(try holds("name ENDSWITH '\\0b'", ["name": "a\u{0}b"]))
        // Wildcards in values are literal.
        #expect(try !holds("name CONTAINS '%'", ["name": "abc"]))
        #expect(try holds("name CONTAINS '_'", ["name": "a_c"]))
        #expect(try !holds("name CONTAINS '_'", ["name": "abc"]))
        // IN with a single string on the right tests for a substring.
        #expect(try holds("'oë' IN name", zoe))
        #expect(try holds("name IN 'xxZoë Ærøxx'", zoe))
        // Numbers are not strings.
        #expect(try !holds("age BEGINSWITH '4'", ["age": 42]))
    }

    @Test func like() throws {
        let cases: [(String, String, Bool)] = [
            ("abc", "abc", true), ("abc", "a*", true), ("abc", "*c", true), ("abc", "*b*", true), ("abc", "a?c", true),
            ("abc", "?", false), ("abc", "???", true), ("abc", "????", false), ("", "*", true), ("", "?", false),
            ("abc", "ab", false), ("abc", "bc", false), ("a*c", "a\\*c", true), ("abc", "a\\*c", false),
            ("a?c", "a\\?c", true), ("abc", "a\\?c", false), ("a\\c", "a\\\\c", true), ("[x]", "[x]", true),
            ("x", "[x]", false), ("a%c", "a%c", true), ("abc", "a%c", false), ("a_c", "a_c", true),
            ("abc", "a_c", false),
            ("line1\nline2", "line1*", true), ("line1\nline2", "line1?line2", true), ("Zoë", "Zo?", true),
            ("Zoe\u{308}", "Zo?", false), ("Zoe\u{308}", "Zo??", true), ("東京都", "東*", true),
            ("👍🏽", "?", false),
            ("👍🏽", "??", true), ("aaa", "*a*a*a*", true), ("aa", "*a*a*a*", false), ("abcabd", "*abd", true),
            ("mississippi", "m*iss*ppi", true), ("mississippi", "m*iss*pp", false), ("ab\\", "ab\\", true),
        ]
        for (text, pattern, expected) in cases {
            #expect(try holds("name LIKE %@", ["name": .string(text)], pattern) == expected, "\(text) LIKE \(pattern)")
        }
        #expect(try holds("name LIKE[c] 'zo*'", ["name": "ZOË"]))
        #expect(try holds("name LIKE[cd] 'zoe'", ["name": "ZOË"]))
        #expect(try !holds("name LIKE[c] 'zoe'", ["name": "ZOË"]))
    }

    @Test func matches() throws {
        let cases: [(String, String, Bool)] = [
            ("abc", "abc", true), ("abc", "ab", false), ("abc", "a.c", true), ("abc", "[a-c]+", true),
            ("abc", "b", false), ("ab", "a|ab", true), ("a", "a|ab", true), ("line1\nline2", "line1.line2", false),
            ("line1\nline2", "(?s)line1.line2", true), ("line1\nline2", "line1$", false), ("line1\nline2", ".*", false),
            ("a*b", "\\Qa*b", true), ("aab", "\\Qa*b", false), ("a*b", "\\Qa*b\\E", true), ("abE", "abE", true),
            ("abc", "(?x) a b c  # spaced", true), ("", "", true), ("x", "", false), ("123", "\\d+", true),
            ("12a", "\\d+", false), ("Zoë", "Zo.", true), ("Zoe\u{308}", "Zo.", false), ("東京", "\\p{Han}+", true),
            ("ABC", "(?i)abc", true),
        ]
        for (text, pattern, expected) in cases {
            #expect(
                try holds("name MATCHES %@", ["name": .string(text)], pattern) == expected, "\(text) MATCHES \(pattern)"
            )
        }
        #expect(try holds("name MATCHES[c] 'zo.'", ["name": "ZOË"]))
        #expect(try !holds("name MATCHES 'zo.'", ["name": "ZOË"]))
        #expect(try holds("name MATCHES[d] 'Zoe'", ["name": "Zoë"]))
        #expect(try holds("name MATCHES[cd] 'zoe'", ["name": "ZOË"]))
        #expect(try !holds("age MATCHES '4.*'", ["age": 42]))
        // A pattern read from the object itself that is not a valid expression simply does not match.
        #expect(try !holds("name MATCHES pattern", ["name": "(", "pattern": "("]))
        #expect(try holds("name MATCHES pattern", ["name": "abc", "pattern": "a.c"]))
    }

    @Test func membershipAndRanges() throws {
        #expect(try holds("age IN {1, 2, 3}", ["age": 2]))
        #expect(try holds("age IN {1, 2.0, 3}", ["age": 2]))
        #expect(try !holds("age IN {'2'}", ["age": 2]))
        #expect(try !holds("age IN {}", ["age": 2]))
        #expect(try holds("age IN %@", ["age": 2], [1, 2]))
        #expect(try holds("name IN %@", ["name": "b"], Set(["a", "b"])))
        #expect(try holds("name IN[cd] {'zoe'}", ["name": "Zoë"]))
        #expect(try holds("{1, 2} CONTAINS age", ["age": 2]))
        #expect(try holds("age IN {other, 9}", ["age": 2, "other": 2]))
        #expect(try holds("age BETWEEN {1, 3}", ["age": 1]))
        #expect(try holds("age BETWEEN {1, 3}", ["age": 3]))
        #expect(try !holds("age BETWEEN {1, 3}", ["age": 4]))
        #expect(try !holds("age BETWEEN {3, 1}", ["age": 2]))
        #expect(try holds("name BETWEEN {'a', 'c'}", ["name": "b"]))
        #expect(try holds("name BETWEEN[c] {'a', 'c'}", ["name": "B"]))
        #expect(try !holds("age BETWEEN {1, nil}", ["age": 2]))
        #expect(try !holds("NOT (age BETWEEN {1, nil})", ["age": 2]))
        #expect(try holds("NOT (age BETWEEN {1, nil})", ["age": 0]))  // false AND unknown is false
    }

    @Test func constantsAndCompounds() throws {
        #expect(FetchPredicate.truePredicate.evaluate { _ in .null })
        #expect(!FetchPredicate.falsePredicate.evaluate { _ in .null })
        #expect(try holds("3 > 2", [:]))
        #expect(try holds("TRUEPREDICATE AND 1 == 1 OR FALSEPREDICATE", [:]))
        #expect(try !holds("NOT TRUEPREDICATE", [:]))
        #expect(try holds("a == 1 OR b == 2 AND c == 3", ["a": 1]))
        #expect(try !holds("(a == 1 OR b == 2) AND c == 3", ["a": 1]))
        #expect(FetchPredicate(.and([])).evaluate { _ in .null })
        #expect(!FetchPredicate(.or([])).evaluate { _ in .null })
    }

    @Test func textMatchingHelpers() {
        let unaccented = FetchPredicate.TextMatching.removingDiacritics("Zoë Łódź Ørsted Ærø São")
        #expect(unaccented == "Zoe Lodz Orsted Æro Sao")
        #expect(FetchPredicate.TextMatching.removingDiacritics("E\u{301}MILE") == "EMILE")
        #expect(FetchPredicate.TextMatching.removingDiacritics("plain ascii") == "plain ascii")
        #expect(FetchPredicate.RegularExpressionCache.wholeStringPattern("a|b") == "\\A(?:a|b)\\z")
        #expect(FetchPredicate.RegularExpressionCache.wholeStringPattern("\\Qa") == "\\A(?:\\Qa\\E)\\z")
        #expect(FetchPredicate.RegularExpressionCache.wholeStringPattern("\\\\Qa") == "\\A(?:\\\\Qa)\\z")
        #expect(FetchPredicate.RegularExpressionCache.wholeStringPattern("(?x)a # c") == "\\A(?:(?x)a # c\n)\\z")
    }
}

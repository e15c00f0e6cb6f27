import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// The one string escaper (issue 38): what each style writes reads back as the same text in its language.
@Suite struct StringEscapingTests {
    static let alphabet: [Unicode.Scalar] = ["a", "Z", "\"", "\\", "'", "\n", "\r", "\t", "\u{0}", "\u{7}", "\u{1F}",
        "\u{7F}", "\u{200B}", "\u{FEFF}", "é", "\u{301}", "日", "🙂", "%", "$", " "]

    static func randomText(_ random: inout SeededRandom) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
        }
        return String(text)
    }

    @Test func jsonAndPredicateLiteralsReadBackAsTheSameText() throws {
        var random = SeededRandom(seed: 38)
        for _ in 0..<400 {
            let text = Self.randomText(&random)
            let json = StringEscaping.quoted(text, style: .json)
            let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
            #expect(decoded == text, "\(json)")
            let predicate = try FetchPredicate(format: "name == " + StringEscaping.quoted(text, style: .predicateFormat))
            let twin = try FetchPredicate(format: "name == %@", text)
            #expect(predicate == twin, "\(predicate)")
        }
    }

    @Test func eachStyleSpellsControlCharactersItsOwnWay() {
        let text = "a\"\\\n\u{7}\u{7F}\u{200B}"
        #expect(StringEscaping.escaped(text, style: .json) == #"a\"\\\n\u0007\u007f\u200b"#)
        #expect(StringEscaping.escaped(text, style: .swift) == "a\\\"\\\\\\n\\u{7}\u{7F}\u{200B}")
        #expect(StringEscaping.escaped(text, style: .predicateFormat) == #"a\"\\\n\u0007\u007F\u200B"#)
        #expect(StringEscaping.escaped(text, style: .display) == "a\"\\\\n\\u{7}\\u{7f}\u{200B}")
    }
}

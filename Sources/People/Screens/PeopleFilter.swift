import Foundation
import ObjectGraph

/// What the text in the filter field means: nothing (everyone), words to look for, or a predicate.
///
/// Text that looks like a predicate — it has a comparison sign (`=`, `<`, `>`, `!`), `&&` or `||`, an
/// upper-case predicate keyword (`AND`, `BEGINSWITH`, …), or starts with one of the person's keys
/// followed by more — is parsed as a Core Data predicate: `age > 40 AND city BEGINSWITH "Ber"`. Any other
/// text is searched for in first and last names, email and city, ignoring case and diacritics
/// (`CONTAINS[cd]`), so that `zoe` finds `Zoë` and `muller` finds `Müller`.
public struct PeopleFilter: Sendable, Hashable {
    /// The text as typed.
    public let text: String
    /// The predicate the list is filtered by; nil for everyone (empty text).
    public let predicate: FetchPredicate?
    /// Whether the text was read as a predicate (else as words to search for).
    public let isPredicate: Bool

    /// The keys plain text is searched in.
    public static let searchedKeys = ["firstName", "lastName", "email", "city"]

    /// No filter: everyone.
    public static let none = PeopleFilter(text: "", predicate: nil, isPredicate: false)

    private init(text: String, predicate: FetchPredicate?, isPredicate: Bool) {
        self.text = text
        self.predicate = predicate
        self.isPredicate = isPredicate
    }

    /// Reads `text` as the filter field does.
    ///
    /// - Parameter keys: the entity's attribute names, which make text that starts with one of them a
    ///   predicate.
    /// - Throws: ``FetchPredicateError`` (with the failing column as its `offset`) when the text looks
    ///   like a predicate but is not a valid one.
    public init(text: String, keys: Set<String> = []) throws(FetchPredicateError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        self.text = text
        if trimmed.isEmpty {
            predicate = nil
            isPredicate = false
        } else if Self.looksLikePredicate(trimmed, keys: keys) {
            // Parse the text as typed, so that error offsets are columns of what the person sees.
            predicate = try FetchPredicate(format: text)
            isPredicate = true
        } else {
            predicate = .or(Self.searchedKeys.map { key in
                .key(key, .contains, .string(trimmed), options: [.caseInsensitive, .diacriticInsensitive])
            })
            isPredicate = false
        }
    }

    /// Whether the store answers this filter from its text search index: words of three characters or more
    /// (after folding case and diacritics) looked for in keys that all have the index in `model` (the People
    /// model declares it on the searched keys). Such a filter costs milliseconds even on a long list, so the
    /// app fetches it at every key rather than waiting for a pause in typing.
    public func usesTextIndex(in model: ManagedObjectModel) -> Bool {
        guard !isPredicate, predicate != nil, let person = model.entity(named: PeopleModel.entityName) else {
            return false
        }
        guard foldedWords.unicodeScalars.count >= 3 else {
            return false
        }
        return Self.searchedKeys.allSatisfy { person.attribute(named: $0)?.isIndexedBySpotlight == true }
    }

    /// Whether everyone this filter finds is someone `previous` finds, so that the list may narrow the people it
    /// shows instead of reading the store again: both are words to look for, and this one's text, with case and
    /// diacritics folded, contains the previous one's (`mul` → `mull`, `Mü` → `mull`). A predicate typed as
    /// text never narrows: telling whether one predicate implies another is not worth guessing.
    public func narrows(_ previous: PeopleFilter) -> Bool {
        guard !isPredicate, !previous.isPredicate, predicate != nil, previous.predicate != nil else { return false }
        return foldedWords.contains(previous.foldedWords)
    }

    /// The text as searched: trimmed, with case and diacritics folded (what `CONTAINS[cd]` compares).
    private var foldedWords: String { StringFolding.folded(text.trimmingCharacters(in: .whitespaces)) }

    private static let upperCaseKeywords: Set<Substring> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    /// Whether `text` is meant as a predicate rather than words to look for.
    public static func looksLikePredicate(_ text: String, keys: Set<String>) -> Bool {
        if text.contains(where: { "=<>!".contains($0) }) || text.contains("&&") || text.contains("||") {
            return true
        }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        if words.contains(where: { upperCaseKeywords.contains($0) }) { return true }
        if words.count > 1, let first = words.first, keys.contains(String(first)) { return true }
        return false
    }
}

import Foundation
import ObjectGraph
import Testing

@testable import People

@Suite struct PeopleFilterTests {
    static let keys: Set<String> = ["firstName", "lastName", "email", "city", "age"]

    @Test(arguments: [
        ("müller", false), ("Zoë Ærø", false), ("van der Berg", false), ("city", false), ("O'Brien", false),
        ("age > 40", true), ("age >> 40", true), ("lastName BEGINSWITH 'Ab'", true), ("a AND b", true),
        ("city contains 'x'", true), ("x || y", true), ("TRUEPREDICATE", true), ("Rock and Roll", false),
    ])
    func textIsReadAsWordsOrAsAPredicate(text: String, isPredicate: Bool) {
        #expect(PeopleFilter.looksLikePredicate(text, keys: Self.keys) == isPredicate)
    }

    @Test func wordsSearchNamesEmailAndCityIgnoringCaseAndDiacritics() throws {
        let filter = try PeopleFilter(text: "  zoe ", keys: Self.keys)
        #expect(!filter.isPredicate)
        let predicate = try #require(filter.predicate)
        #expect(predicate.referencedKeys == ["firstName", "lastName", "email", "city"])
        #expect(predicate.predicateFormat.contains("CONTAINS[cd]"))
        let values: [String: AttributeValue] = ["firstName": "ZOË", "lastName": "x", "email": "y", "city": "z"]
        #expect(predicate.evaluate { values[$0] ?? .null })
        #expect(!predicate.evaluate { _ in .string("nobody") })
    }

    @Test(arguments: [
        ("mu", "mul", true), ("Mü", "mull", true), ("mul", "MUL", true), ("ab", "b", false), ("", "a", false),
        ("a", "", false), ("age", "age > 3", false), ("age > 3", "age > 30", false), (" ber ", "Berl", true),
    ])
    func aFilterNarrowsWhenItsFoldedWordsExtendThePrevious(previous: String, text: String, narrows: Bool) throws {
        let keys: Set<String> = ["age", "firstName"]
        #expect(try PeopleFilter(text: text, keys: keys).narrows(PeopleFilter(text: previous, keys: keys)) == narrows)
    }

    @Test func aPredicateIsUsedAsOne() throws {
        let filter = try PeopleFilter(text: #"age > 40 AND city BEGINSWITH "Ber""#, keys: Self.keys)
        #expect(filter.isPredicate)
        #expect(filter.predicate == (try FetchPredicate(format: #"age > 40 AND city BEGINSWITH "Ber""#)))
        #expect(try PeopleFilter(text: "   ", keys: Self.keys).predicate == nil)
    }

    @Test func anInvalidPredicateSaysWhere() {
        #expect {
            try PeopleFilter(text: "age >> 40", keys: Self.keys)
        } throws: { error in
            (error as? FetchPredicateError)?.offset == 5
        }
    }
}

@Suite struct PeopleSectionModeTests {
    @Test(arguments: [
        ("Zoë", "Z"), ("émile", "E"), ("Ærø", "A"), ("", "#"), ("42nd", "#"), ("'t Hooft", "#"),
        ("東京", PeopleSectionMode.otherScriptsTitle), ("Αθήνα", PeopleSectionMode.otherScriptsTitle),
        ("~tilde", PeopleSectionMode.otherScriptsTitle),
    ])
    func initialSections(text: String, section: String) {
        #expect(PeopleSectionMode.initialSection(of: text) == section)
    }

    @Test func decadesAndIndexTitles() {
        #expect(PeopleSectionMode.decadeSection(of: 0) == "0–9")
        #expect(PeopleSectionMode.decadeSection(of: 47) == "40–49")
        #expect(PeopleSectionMode.decadeSection(of: 200) == "200–209")
        #expect(PeopleSectionMode.ageDecade.indexTitle(forSectionName: "40–49") == "40")
        #expect(PeopleSectionMode.city.indexTitle(forSectionName: PeopleSectionMode.otherScriptsTitle) == "…")
        #expect(PeopleSectionMode.lastNameInitial.next == .firstNameInitial)
        #expect(PeopleSectionMode.ageDecade.next == .lastNameInitial)
    }

    /// The section name of every mode never goes back along the mode's first sort key, for tricky text:
    /// that is what keeps sections contiguous.
    @Test func sectionNamesFollowTheFoldedOrder() {
        let texts = ["", " space", "0zero", "'quote", "Ærø", "aaron", "Émile", "zz", "{brace", "~", "Ωmega", "東京", "Ølsen"]
        let sorted = texts.sorted { StringFolding.folded($0).utf8.lexicographicallyPrecedes(StringFolding.folded($1).utf8) }
        let sections = sorted.map(PeopleSectionMode.initialSection(of:))
        var seen: [String] = []
        for section in sections where seen.last != section {
            #expect(!seen.contains(section), "\(section) appears twice in \(sections)")
            seen.append(section)
        }
    }
}

@Suite struct LineEditorTests {
    @Test func editingKeys() {
        var editor = LineEditor("Zoë")
        #expect(editor.cursor == 3)
        editor.handle(.left)
        editor.handle(.character("x"))
        #expect(editor.text == "Zoxë")
        editor.handle(.backspace)
        editor.handle(.delete)
        #expect(editor.text == "Zo")
        editor.handle(.home)
        editor.handle(.character("¡"))
        editor.handle(.end)
        editor.handle(.character("!"))
        #expect(editor.text == "¡Zo!")
        let usedEnter = editor.handle(.enter)
        #expect(!usedEnter)
        editor.handle(.home)
        editor.handle(.backspace)
        #expect(editor.text == "¡Zo!")
    }
}

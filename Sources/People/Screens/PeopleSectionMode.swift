import Foundation
import ObjectGraph

/// How the list is sorted and divided into sections; `s` cycles through them.
///
/// A fetched-results controller needs its first sort key to keep every section in one contiguous run
/// (otherwise `performFetch()` fails with ``ObjectGraphError/sectionsOutOfOrder(index:sectionName:)``),
/// and the store can sort only on stored attributes. So each mode sorts on stored attributes and
/// derives its section name from the first of them by a function that never decreases along that
/// order:
///
/// - last-name initial: `sectionOrder` (stored, 1–27, kept up to date from `lastName`) puts `#` after Z;
/// - first-name initial and city: sorting by the case- and diacritic-folded text orders names by their
///   first folded byte, so the sections are `#` (empty, digits and punctuation, which sort before
///   `a`), `A`–`Z`, then `Other scripts` (Greek, Cyrillic, CJK, …, which sort after `z`);
/// - age decade: ages sort numerically, so `0–9`, `10–19`, … follow in order.
public enum PeopleSectionMode: String, CaseIterable, Sendable {
    /// Sections A–Z and `#` by the last name's initial; sorted by last name, then first name.
    case lastNameInitial
    /// Sections by the first name's initial; sorted by first name, then last name.
    case firstNameInitial
    /// Sections by the city's initial; sorted by city, then name.
    case city
    /// Sections by decade of age (`30–39`); sorted by age, then name.
    case ageDecade

    /// The transient key naming a person's section in first-name mode.
    public static let firstNameInitialKey = "firstNameInitial"
    /// The transient key naming a person's section in city mode.
    public static let cityInitialKey = "cityInitial"
    /// The transient key naming a person's section in age mode.
    public static let ageDecadeKey = "ageDecade"
    /// The section of names and cities in other scripts, after Z.
    public static let otherScriptsTitle = "Other scripts"

    /// The mode `s` switches to next.
    public var next: PeopleSectionMode {
        let all = Self.allCases
        let index = all.firstIndex(of: self) ?? 0
        return all[(index + 1) % all.count]
    }

    /// What the status line calls the mode.
    public var title: String {
        switch self {
        case .lastNameInitial: "last name"
        case .firstNameInitial: "first name"
        case .city: "city"
        case .ageDecade: "age"
        }
    }

    /// The key whose value names a person's section.
    public var sectionKey: String {
        switch self {
        case .lastNameInitial: PeopleModel.sectionTitleKey
        case .firstNameInitial: Self.firstNameInitialKey
        case .city: Self.cityInitialKey
        case .ageDecade: Self.ageDecadeKey
        }
    }

    /// How the results controller names sections in this mode: the same names as ``sectionKey`` reads
    /// from a person, derived from stored values so that a batched controller reads them from rows
    /// without making objects.
    public var sectionNaming: SectionNaming {
        switch self {
        case .lastNameInitial:
            .derived(from: [PeopleModel.sectionOrderKey], label: "people.sectionOrder") {
                PeopleModel.sectionTitle(forOrder: $0[0].int64Value ?? 27)
            }
        case .firstNameInitial:
            .derived(from: ["firstName"], label: "people.firstNameInitial") { Self.initialSection(of: $0[0].stringValue ?? "") }
        case .city:
            .derived(from: ["city"], label: "people.cityInitial") { Self.initialSection(of: $0[0].stringValue ?? "") }
        case .ageDecade:
            .derived(from: ["age"], label: "people.ageDecade") { Self.decadeSection(of: $0[0].int64Value ?? 0) }
        }
    }

    /// The list's order in this mode; the first criterion keeps sections contiguous.
    public var sortCriteria: [SortCriterion] {
        let lastName = SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive)
        let firstName = SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive)
        switch self {
        case .lastNameInitial: return PeopleModel.listSortCriteria
        case .firstNameInitial: return [firstName, lastName]
        case .city: return [SortCriterion("city", comparison: .caseAndDiacriticInsensitive), lastName, firstName]
        case .ageDecade: return [SortCriterion("age"), lastName, firstName]
        }
    }

    /// The index title of a section: its name, except `…` for other scripts and the decade's first
    /// year for ages (`30` for `30–39`).
    public func indexTitle(forSectionName name: String) -> String {
        switch self {
        case .lastNameInitial, .firstNameInitial, .city:
            return name == Self.otherScriptsTitle ? "…" : name
        case .ageDecade:
            return String(name.prefix { $0 != "–" })
        }
    }

    // MARK: - Section names

    /// The section of a name or city in the first-name and city modes: `#` for text whose folded form
    /// is empty or starts before `a`, its upper-cased folded initial for `a`–`z`, and
    /// ``otherScriptsTitle`` for text that starts after `z`.
    public static func initialSection(of text: String) -> String {
        guard let first = StringFolding.folded(text).utf8.first, first >= 0x61 else { return "#" }
        guard first <= 0x7A else { return otherScriptsTitle }
        return String(UnicodeScalar(first - 0x20))
    }

    /// The decade section of an age: `30–39`.
    public static func decadeSection(of age: Int64) -> String {
        guard age >= 0 else { return "<0" }
        let start = age / 10 * 10
        return "\(start)–\(start + 9)"
    }
}

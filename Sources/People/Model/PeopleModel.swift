import Foundation
import ObjectGraph
import PeopleResources

/// The browser's data model: `Resources/People.xcdatamodeld`, plus the list's order and sections.
public enum PeopleModel {
    /// The entity name.
    public static let entityName = "Person"
    /// The stored key that orders sections (1–26 for A–Z, 27 for `#`).
    public static let sectionOrderKey = "sectionOrder"
    /// The transient key naming a person's section.
    public static let sectionTitleKey = "sectionTitle"

    /// The classes of the model's entities.
    public static let classes: [ManagedObject.Type] = [Person.self, Company.self, Tag.self]

    /// Loads the app's model from `Resources/People.xcdatamodeld`.
    ///
    /// - Throws: ``PeopleModelError`` when the resource is missing or does not load.
    public static func loadModel() throws(PeopleModelError) -> ManagedObjectModel {
        guard let url = PeopleResources.modelURL else { throw .missingResource }
        do {
            return try ManagedObjectModel.load(contentsOf: url, classes: classes)
        } catch {
            throw .invalidModel(error)
        }
    }

    /// The section position for a section title: A → 1 … Z → 26, anything else (`#`) → 27.
    public static func sectionOrder(forTitle title: String) -> Int64 {
        guard let scalar = title.unicodeScalars.first, title.unicodeScalars.count == 1,
            scalar.value >= 0x41, scalar.value <= 0x5A
        else { return 27 }
        return Int64(scalar.value - 0x40)
    }

    /// The section title of a stored section position: 1–26 → A–Z, 27 (and anything above) → `#`, anything
    /// below 1 → `·`. The list names its sections by this, not by the last name, so that a row whose stored
    /// position does not match its last name (written by another program, a batch update of `lastName`) still
    /// sits in one contiguous section instead of breaking the list's order.
    public static func sectionTitle(forOrder order: Int64) -> String {
        switch order {
        case 1...26: String(UnicodeScalar(UInt8(0x40 + order)))
        case 27...: "#"
        default: "·"
        }
    }

    /// The list's order: section, then last name, then first name, ignoring case and diacritics.
    public static let listSortCriteria = [
        SortCriterion(sectionOrderKey),
        SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive),
        SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive),
    ]

    /// The request behind the list: every person, in list order.
    public static func listRequest() -> FetchRequest<Person> {
        var request = FetchRequest<Person>(entityName: entityName, sortCriteria: listSortCriteria)
        request.fetchBatchSize = listBatchSize
        return request
    }

    /// How many people the list loads at a time: its controller keeps only IDs and sort keys for the
    /// rest, so a million people cost little memory.
    public static let listBatchSize = 100
}

/// Why the app's model could not be loaded.
public enum PeopleModelError: Error, Sendable, CustomStringConvertible {
    /// `People.xcdatamodeld` is not next to the executable (its resource bundle is missing).
    case missingResource
    /// The model file does not load.
    case invalidModel(ModelLoadError)

    public var description: String {
        switch self {
        case .missingResource: "The People model (People.xcdatamodeld) is missing from the app's resources."
        case .invalidModel(let error): "The People model does not load: \(error)"
        }
    }
}

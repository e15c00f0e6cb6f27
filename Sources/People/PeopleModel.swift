import Foundation
import ObjectGraph

/// The browser's data model, built in code: one entity, `Person`.
public enum PeopleModel {
    /// The entity name.
    public static let entityName = "Person"
    /// The stored key that orders sections (1–26 for A–Z, 27 for `#`).
    public static let sectionOrderKey = "sectionOrder"
    /// The transient key naming a person's section.
    public static let sectionTitleKey = "sectionTitle"

    /// The `Person` entity: `firstName`, `lastName`, `email`, `city` (strings), `age` (Integer 64),
    /// `createdAt` (Date), plus the derived `sectionOrder` and the transient `sectionTitle`.
    public static let person = EntityDescription(
        name: entityName,
        attributes: [
            AttributeDescription(name: "firstName", type: .string, defaultValue: ""),
            AttributeDescription(name: "lastName", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "email", type: .string, defaultValue: ""),
            AttributeDescription(name: "city", type: .string, defaultValue: ""),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "createdAt", type: .date),
            AttributeDescription(name: sectionOrderKey, type: .integer16, isOptional: false, defaultValue: 27),
            AttributeDescription(name: sectionTitleKey, type: .string, isTransient: true),
        ],
        managedObjectClass: Person.self)

    /// The model with the `Person` entity.
    public static func makeModel() -> ManagedObjectModel {
        // A model of one entity with distinct attribute names cannot fail to build.
        guard let model = try? ManagedObjectModel(entities: [person]) else {
            preconditionFailure("The built-in People model is inconsistent.")
        }
        return model
    }

    /// The section position for a section title: A → 1 … Z → 26, anything else (`#`) → 27.
    public static func sectionOrder(forTitle title: String) -> Int64 {
        guard let scalar = title.unicodeScalars.first, title.unicodeScalars.count == 1,
            scalar.value >= 0x41, scalar.value <= 0x5A
        else { return 27 }
        return Int64(scalar.value - 0x40)
    }

    /// The list's order: section, then last name, then first name, ignoring case and diacritics.
    public static let listSortCriteria = [
        SortCriterion(sectionOrderKey),
        SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive),
        SortCriterion("firstName", comparison: .caseAndDiacriticInsensitive),
    ]

    /// The request behind the list: every person, in list order.
    public static func listRequest() -> FetchRequest<Person> {
        FetchRequest<Person>(entityName: entityName, sortCriteria: listSortCriteria)
    }
}

import Foundation
import ObjectGraph

/// The benchmark's data model: the `Person` entity of the People app (`Resources/People.xcdatamodeld`) with
/// its stored attributes, minus the relationships to Company and Tag (which the workloads do not touch) and
/// with a stored `section` (the upper-case initial of the last name) in place of the app's derived
/// `sectionOrder`/`sectionTitle` pair, so that raw SQL and the controller see the same section key.
public enum PersonModel {
    /// The entity name; its table is `ZPERSON`.
    public static let entityName = "Person"

    /// Which secondary index the store has.
    public enum Index: String, Sendable, CaseIterable {
        /// None: only the primary key.
        case none
        /// A fetch index on (lastName, firstName): the list order.
        case name
    }

    /// The model with `index`.
    public static func make(index: Index) throws -> ManagedObjectModel {
        let attributes = [
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: .integer(0),
                usesScalarValueType: true),
            AttributeDescription(name: "avatar", type: .binary),
            AttributeDescription(name: "city", type: .string, isOptional: false, defaultValue: .string("")),
            AttributeDescription(name: "createdAt", type: .date),
            AttributeDescription(name: "email", type: .string, isOptional: false, defaultValue: .string("")),
            AttributeDescription(name: "firstName", type: .string, isOptional: false, defaultValue: .string("")),
            AttributeDescription(name: "lastName", type: .string, isOptional: false, defaultValue: .string("")),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "phone", type: .string),
            AttributeDescription(name: "section", type: .string, isOptional: false, defaultValue: .string("#")),
        ]
        let indexes: [FetchIndexDescription] = switch index {
        case .none: []
        case .name: [FetchIndexDescription(name: "byName", elements: [.init(property: "lastName"), .init(property: "firstName")])]
        }
        let person = EntityDescription(name: entityName, attributes: attributes, fetchIndexes: indexes)
        return try ManagedObjectModel(entities: [person])
    }

    /// The list order: last name, then first name (binary, as raw `ORDER BY ZLASTNAME, ZFIRSTNAME`).
    public static let listSortCriteria = [SortCriterion("lastName"), SortCriterion("firstName")]

    /// The section key path of the list.
    public static let sectionKey = "section"

    /// Every person in list order.
    public static func listRequest() -> FetchRequest<ManagedObject> {
        FetchRequest<ManagedObject>(entityName: entityName, sortCriteria: listSortCriteria)
    }

    /// Copies `row`'s values into `object`.
    public static func fill(_ object: ManagedObject, from row: PersonRow) {
        object.setValue(.string(row.firstName), forKey: "firstName")
        object.setValue(.string(row.lastName), forKey: "lastName")
        object.setValue(.string(row.email), forKey: "email")
        object.setValue(.string(row.city), forKey: "city")
        object.setValue(.integer(row.age), forKey: "age")
        object.setValue(.date(Date(timeIntervalSinceReferenceDate: row.createdAt)), forKey: "createdAt")
        object.setValue(.string(row.section), forKey: "section")
    }
}

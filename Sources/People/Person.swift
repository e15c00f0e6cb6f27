import Foundation
import ObjectGraph

/// A person in the browser's database: a `ManagedObject` subclass with typed accessors, as Xcode would
/// generate for Core Data.
///
/// Besides the attributes people see, a person keeps `sectionOrder`, the position of its list section
/// (1–26 for A–Z, 27 for `#`), derived from the last name whenever it is set. The list sorts on it first,
/// so that every section is one contiguous run and `#` comes after Z; `sectionTitle` (transient) is the
/// section's name.
public final class Person: ManagedObject {
    /// The given name.
    public var firstName: String {
        get { self["firstName"] ?? "" }
        set { self["firstName"] = newValue }
    }

    /// The family name; the list is sorted and sectioned by it.
    public var lastName: String {
        get { self["lastName"] ?? "" }
        set { self["lastName"] = newValue }
    }

    /// The e-mail address.
    public var email: String {
        get { self["email"] ?? "" }
        set { self["email"] = newValue }
    }

    /// The city the person lives in.
    public var city: String {
        get { self["city"] ?? "" }
        set { self["city"] = newValue }
    }

    /// The age in years.
    public var age: Int64 {
        get { self["age"] ?? 0 }
        set { self["age"] = newValue }
    }

    /// When the person was added.
    public var createdAt: Date? {
        get { self["createdAt"] }
        set { self["createdAt"] = newValue }
    }

    /// The list section: the folded, upper-cased initial of the last name, or `#`.
    public var sectionTitle: String { StringFolding.initial(lastName) }

    /// "Last, First" as the list shows it.
    public var displayName: String {
        firstName.isEmpty ? lastName : "\(lastName), \(firstName)"
    }

    /// Copies a record's values into the person.
    public func update(from record: PersonRecord) {
        firstName = record.firstName
        lastName = record.lastName
        email = record.email
        city = record.city
        age = record.age
        createdAt = record.createdAt
    }

    public override func value(forKey key: String) -> AttributeValue {
        key == PeopleModel.sectionTitleKey ? .string(sectionTitle) : super.value(forKey: key)
    }

    public override func setValue(_ value: AttributeValue, forKey key: String) {
        super.setValue(value, forKey: key)
        if key == "lastName" {
            super.setValue(.integer(PeopleModel.sectionOrder(forTitle: sectionTitle)), forKey: PeopleModel.sectionOrderKey)
        }
    }
}

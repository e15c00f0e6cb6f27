import Foundation
import ObjectGraph

/// A person in the browser's database: a `ManagedObject` subclass of the model's `Person` entity
/// (`Resources/People.xcdatamodeld`), with typed properties as `objectgraph codegen` writes them.
///
/// Besides the attributes people see, a person keeps `sectionOrder`, the position of its list section
/// (1–26 for A–Z, 27 for `#`), derived from the last name whenever it is set. The list sorts on it first,
/// so that every section is one contiguous run and `#` comes after Z; `sectionTitle` (transient) is the
/// section's name. The other section modes of the list name sections by derived keys too
/// (``PeopleSectionMode``).
public final class Person: ManagedObject {
    /// The given name.
    @Attribute("firstName") public var firstName: String
    /// The family name; the list is sorted and sectioned by it.
    @Attribute("lastName") public var lastName: String
    /// The e-mail address.
    @Attribute("email") public var email: String
    /// The city the person lives in.
    @Attribute("city") public var city: String
    /// The age in years.
    @Attribute("age") public var age: Int64
    /// When the person was added.
    @Attribute("createdAt") public var createdAt: Date?
    /// A phone number, if known.
    @Attribute("phoneNumber") public var phoneNumber: String?
    /// The date of birth, if known (model version `People 2`).
    @Attribute("birthday") public var birthday: Date?
    /// What friends call the person, if anything.
    @Attribute("nickname") public var nickname: String?
    /// A picture, if any (large ones may be stored outside the database once external storage lands).
    @Attribute("avatar") public var avatar: Data?
    /// Where the person works (inverse of `Company.employees`).
    @ToOne("company") public var company: Company?
    /// The person's tags (many-to-many with `Tag.people`).
    @ToMany("tags") public var tags: Set<Tag>

    /// Tags the person with `tag`.
    public func addToTags(_ tag: Tag) { addRelatedObject(tag, forKey: "tags") }
    /// Removes `tag` from the person.
    public func removeFromTags(_ tag: Tag) { removeRelatedObject(tag, forKey: "tags") }

    /// The list section, from the stored section position (``PeopleModel/sectionTitle(forOrder:)``): the
    /// folded, upper-cased initial of the last name, or `#`, for every person this app saved.
    public var sectionTitle: String {
        PeopleModel.sectionTitle(forOrder: value(forKey: PeopleModel.sectionOrderKey).int64Value ?? 27)
    }

    /// "Last, First" as the list shows it.
    public var displayName: String {
        firstName.isEmpty ? lastName : "\(lastName), \(firstName)"
    }

    /// "First Last" as a sentence names the person (undo steps: "delete Ada Lovelace").
    public var fullName: String {
        [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
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

    /// The derived keys the list's section modes name sections by (see ``PeopleSectionMode``), then the
    /// model's attributes.
    public override func value(forKey key: String) -> AttributeValue {
        switch key {
        case PeopleModel.sectionTitleKey: .string(sectionTitle)
        case PeopleSectionMode.firstNameInitialKey: .string(PeopleSectionMode.initialSection(of: firstName))
        case PeopleSectionMode.cityInitialKey: .string(PeopleSectionMode.initialSection(of: city))
        case PeopleSectionMode.ageDecadeKey: .string(PeopleSectionMode.decadeSection(of: age))
        default: super.value(forKey: key)
        }
    }

    public override func setValue(_ value: AttributeValue, forKey key: String) {
        super.setValue(value, forKey: key)
        if key == "lastName" {
            super.setValue(.integer(PeopleModel.sectionOrder(forTitle: StringFolding.initial(lastName))),
                forKey: PeopleModel.sectionOrderKey)
        }
    }
}

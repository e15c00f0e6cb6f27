import Foundation
import ObjectGraph

/// A label people can carry (the model's `Tag` entity, many-to-many with `Person`).
public final class Tag: ManagedObject {
    /// The tag's text, unique among tags.
    @Attribute("name") public var name: String
    /// The people carrying this tag (inverse of `Person.tags`).
    @ToMany("people") public var people: Set<Person>

    /// Tags `person` with this tag.
    public func addToPeople(_ person: Person) { addRelatedObject(person, forKey: "people") }
    /// Removes this tag from `person`.
    public func removeFromPeople(_ person: Person) { removeRelatedObject(person, forKey: "people") }
}

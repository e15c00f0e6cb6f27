import Foundation
import ObjectGraph

// Typed classes for the predicate graph's model (`PredicateGraph.makeModel()`), declared as
// `objectgraph codegen` writes them, for translating `#Predicate`s. They are not registered with the
// model: translation needs only the classes, and the graph's objects stay plain `ManagedObject`s.

final class TypedPerson: ManagedObject {
    @Attribute("serial") var serial: Int64
    @Attribute("name") var name: String?
    @Attribute("nickname") var nickname: String?
    @Attribute("age") var age: Int64?
    @Attribute("score") var score: Double?
    @Attribute("born") var born: Date?
    @Attribute("active") var active: Bool?

    @ToOne("company") var company: TypedCompany?
    @ToMany("tags") var tags: Set<TypedTag>
    @ToOne("manager") var manager: TypedPerson?
    @ToMany("friends") var friends: Set<TypedPerson>

    /// A computed accessor of one attribute: it stands for that attribute.
    var requiredName: String { name! }

    /// Not a model property: key paths to it must be refused.
    var displayName: String { (name ?? "") + " " + (nickname ?? "") }

    override class var entityName: String { "Person" }
}

final class TypedCompany: ManagedObject {
    @Attribute("serial") var serial: Int64
    @Attribute("name") var name: String?
    @Attribute("rating") var rating: Double?
    @Attribute("founded") var founded: Int64?

    @ToMany("employees") var employees: Set<TypedPerson>
    @ToOne("parent") var parent: TypedCompany?

    override class var entityName: String { "Company" }
}

final class TypedTag: ManagedObject {
    @Attribute("serial") var serial: Int64
    @Attribute("name") var name: String?
    @Attribute("weight") var weight: Int64?

    @ToMany("people") var people: Set<TypedPerson>

    override class var entityName: String { "Tag" }
}

/// A class with hand-written accessors instead of property wrappers (the pattern `ManagedObject`'s
/// subscript documents): its key paths are named too.
final class HandWrittenPerson: ManagedObject {
    var name: String? {
        get { self["name"] }
        set { self["name"] = newValue }
    }
    var age: Int64 { self["age"] ?? 0 }
    var company: ManagedObject? { relatedObject(forKey: "company") }
    var tags: [ManagedObject] { relatedObjects(forKey: "tags") }

    override class var entityName: String { "Person" }
}

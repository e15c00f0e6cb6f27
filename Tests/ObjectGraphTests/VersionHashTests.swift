import Foundation
import Testing
@testable import ObjectGraph

/// What changes an entity's version hash and what does not (the Models, objects and saving article documents the algorithm).
@Suite struct VersionHashTests {
    private static func person(
        attributes: [AttributeDescription]? = nil, relationships: [RelationshipDescription] = [],
        parent: String? = nil, className: String? = "Person", modifier: String? = nil
    ) -> EntityDescription {
        EntityDescription(
            name: "Person",
            attributes: attributes ?? [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: relationships, parentEntity: parent, managedObjectClassName: className,
            versionHashModifier: modifier)
    }

    private static func hash(_ entity: EntityDescription, extra: [EntityDescription] = []) throws -> Data {
        let model = try ManagedObjectModel(entities: [entity] + extra)
        return try #require(model.entityVersionHashes[entity.name])
    }

    private static let base = person()

    @Test func hashIsStableAndThirtyTwoBytes() throws {
        let first = try Self.hash(Self.base)
        #expect(first.count == 32)
        #expect(try Self.hash(Self.person()) == first)
        #expect(try ManagedObjectModel(entities: [Self.base]).versionHash.count == 32)
    }

    @Test(arguments: [
        ("renaming the class", person(className: "Human")),
        ("editing a transient", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .integer32, isTransient: true)])),
        ("adding a transient", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string, isTransient: true),
            AttributeDescription(name: "other", type: .string, isTransient: true)])),
        ("removing a transient", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0)])),
        ("changing a default and validation", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, minimum: 1, regularExpression: "[A-Z].*"),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 18, maximum: 150),
            AttributeDescription(name: "scratch", type: .string, isTransient: true)])),
        ("reordering properties", person(attributes: [
            AttributeDescription(name: "scratch", type: .string, isTransient: true),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "name", type: .string, isOptional: false)])),
    ])
    func unchanged(_ what: String, _ entity: EntityDescription) throws {
        #expect(try Self.hash(entity) == Self.hash(Self.base), "\(what) must not change the hash")
    }

    @Test(arguments: [
        ("renaming a stored attribute", person(attributes: [
            AttributeDescription(name: "fullName", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string, isTransient: true)])),
        ("changing a type", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer32, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string, isTransient: true)])),
        ("changing optionality", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: true),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string, isTransient: true)])),
        ("making a stored attribute transient", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, isTransient: true, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string, isTransient: true)])),
        ("making a transient stored", person(attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "scratch", type: .string)])),
        ("a version hash modifier", person(modifier: "2")),
    ])
    func changed(_ what: String, _ entity: EntityDescription) throws {
        #expect(try Self.hash(entity) != Self.hash(Self.base), "\(what) must change the hash")
    }

    @Test func relationshipsAndInheritanceChangeTheHash() throws {
        let company = EntityDescription(name: "Company", attributes: [], relationships: [
            RelationshipDescription(name: "staff", destination: "Person", inverse: "employer", isToMany: true)])
        let employer = RelationshipDescription(name: "employer", destination: "Company", inverse: "staff")
        let withRelationship = try Self.hash(Self.person(relationships: [employer]), extra: [company])
        #expect(withRelationship != (try Self.hash(Self.base, extra: [company.withoutRelationships])))
        let toMany = RelationshipDescription(name: "employer", destination: "Company", inverse: "staff", isToMany: true)
        #expect(try Self.hash(Self.person(relationships: [toMany]), extra: [company]) != withRelationship)
        let cascading = RelationshipDescription(name: "employer", destination: "Company", inverse: "staff",
            deleteRule: .cascade)
        #expect(try Self.hash(Self.person(relationships: [cascading]), extra: [company]) == withRelationship,
            "a delete rule is behaviour, not layout")
        let living = EntityDescription(name: "Living", attributes: [])
        #expect(try Self.hash(Self.person(parent: "Living"), extra: [living]) != (try Self.hash(Self.base)))
    }
}

extension EntityDescription {
    fileprivate var withoutRelationships: EntityDescription {
        EntityDescription(name: name, attributes: Array(ownAttributes), parentEntity: parentEntityName)
    }
}

import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// Typed fetch request templates (issue 34): a model template with its variables substituted and a typed
/// predicate joined, giving the same objects as the template's format with the condition written as text.
@Suite struct TypedTemplateTests {
    static func coordinator(in directory: TemporaryDirectory) throws -> PersistentStoreCoordinator {
        let member = EntityDescription(name: "Member", attributes: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "age", type: .integer64),
            AttributeDescription(name: "city", type: .string),
        ], relationships: [RelationshipDescription(name: "teams", destination: "Team", inverse: "members", isToMany: true)],
            managedObjectClassName: "TypedMember")
        let team = EntityDescription(name: "Team", attributes: [AttributeDescription(name: "title", type: .string)],
            relationships: [RelationshipDescription(name: "members", destination: "Member", inverse: "teams", isToMany: true)],
            managedObjectClassName: "TypedTeam")
        let model = try ManagedObjectModel(entities: [member, team], fetchRequestTemplates: [
            FetchRequestTemplate(name: "InCity", entityName: "Member", predicateFormat: "city ==[cd] $CITY"),
            FetchRequestTemplate(name: "Teams", entityName: "Team", predicateFormat: nil),
        ], classes: [TypedMember.self, TypedTeam.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("templates.sqlite"))
        return coordinator
    }

    @Test func aTypedTemplateSelectsWhatItsTextTwinSelects() throws {
        let directory = TemporaryDirectory()
        let coordinator = try Self.coordinator(in: directory)
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            for (name, age, city) in [("a", 20, "Zürich"), ("b", 40, "zurich"), ("c", 50, "ZÜRICH"), ("d", 60, "Oslo"), ("e", 10, nil)] {
                let member = TypedMember(context: context)
                member.name = name
                member.age = Int64(age)
                member.city = city
            }
            try context.save()
        }
        let model = coordinator.managedObjectModel
        let typed = try #require(try model.fetchRequest(fromTemplateWithName: "InCity", as: TypedMember.self,
            substitutionVariables: ["CITY": "zurich"], combinedWith: #Predicate { $0.age >= 30 }))
        let text = try #require(try model.fetchRequest(fromTemplateWithName: "InCity", substitutionVariables: ["CITY": "zurich"],
            combinedWith: FetchPredicate(format: "age >= 30")))
        let (typedNames, textNames) = try context.performAndWait {
            (try context.fetch(typed).compactMap(\.name).sorted(), try context.fetch(text).compactMap { $0["name"] as String? }.sorted())
        }
        #expect(typedNames == ["b", "c"])
        #expect(typedNames == textNames)
        #expect(try model.fetchRequest(fromTemplateWithName: "Nope", as: TypedMember.self) == nil)
        #expect(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "Teams", as: TypedMember.self)
        }
        #expect(throws: FetchPredicateError.self) {
            try model.fetchRequest(fromTemplateWithName: "InCity", as: TypedMember.self)  // $CITY left unsubstituted
        }
    }
}

import Foundation
import Testing
@testable import ObjectGraph

/// Records the hooks it receives, in order.
final class Journaled: ManagedObject {
    nonisolated(unsafe) static var journal: [String] = []
    @Attribute("name") var name: String?
    override class var entityName: String { "Journaled" }
    override func awakeFromInsert() { Self.journal.append("awakeFromInsert") }
    override func awakeFromFetch() { Self.journal.append("awakeFromFetch") }
    override func willSave() { Self.journal.append("willSave") }
    override func didSave() { Self.journal.append("didSave") }
    override func prepareForDeletion() { Self.journal.append("prepareForDeletion") }
    override func willTurnIntoFault() { Self.journal.append("willTurnIntoFault") }
    override func didTurnIntoFault() { Self.journal.append("didTurnIntoFault") }
    override func validateForInsert() throws(ObjectGraphError) {
        Self.journal.append("validateForInsert")
        try super.validateForInsert()
        if name == "forbidden" {
            throw .validation([ValidationFailure(objectID: objectID, key: "name", reason: "is forbidden")])
        }
    }
}

@Suite(.serialized) struct LifecycleTests {
    private static func context() throws -> (ManagedObjectContext, TemporaryDirectory) {
        let entity = EntityDescription(name: "Journaled", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")])
        let model = try ManagedObjectModel(entities: [entity], classes: [Journaled.self])
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("j.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, directory)
    }

    @Test func hooksRunAtTheirMomentsAndInOrder() throws {
        let (context, directory) = try Self.context()
        _ = directory
        Journaled.journal = []
        try context.performAndWait {
            let object = try #require(try context.insertNewObject(forEntityName: "Journaled") as? Journaled)
            object.name = "one"
            try context.save()
            #expect(Journaled.journal == ["awakeFromInsert", "willSave", "validateForInsert", "didSave"])
            Journaled.journal = []
            context.refresh(object, mergeChanges: false)
            #expect(object.isFault)
            #expect(object.name == "one", "a refreshed fault reads its saved values")
            #expect(Journaled.journal == ["willTurnIntoFault", "didTurnIntoFault", "awakeFromFetch"])
            Journaled.journal = []
            context.delete(object)
            #expect(Journaled.journal == ["prepareForDeletion"])
            context.rollback()
            context.insert(object)
            #expect(!Journaled.journal.contains("awakeFromInsert"), "awakeFromInsert runs once in an object's life")
        }
    }

    @Test func overriddenValidationJoinsTheModelsFailures() throws {
        let (context, directory) = try Self.context()
        _ = directory
        try context.performAndWait {
            let object = try #require(try context.insertNewObject(forEntityName: "Journaled") as? Journaled)
            object.name = "forbidden"
            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.validation(let failures) = error else { return false }
                return failures.map(\.reason) == ["is forbidden"]
            }
            #expect(context.hasChanges)
        }
    }

    @Test func refreshWithMergeKeepsUnsavedChanges() throws {
        let (context, directory) = try Self.context()
        _ = directory
        try context.performAndWait {
            let object = try #require(try context.insertNewObject(forEntityName: "Journaled") as? Journaled)
            object.name = "saved"
            try context.save()
            object.name = "edited"
            context.refresh(object, mergeChanges: true)
            #expect(object.name == "edited" && object.isUpdated)
            context.refresh(object, mergeChanges: false)
            #expect(object.name == "saved" && !object.isUpdated && !context.hasChanges)
        }
    }
}

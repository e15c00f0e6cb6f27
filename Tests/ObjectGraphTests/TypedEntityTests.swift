import Foundation
import Testing
@testable import ObjectGraph

/// A typed subclass as `objectgraph codegen` writes it.
final class Gadget: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("count") var count: Int16
    @Attribute("price") var price: Double?
    @Attribute("madeAt") var madeAt: Date?
    @Attribute("serial") var serial: UUID?
    override class var entityName: String { "Gadget" }
}

@Suite struct TypedEntityTests {
    static func stack() throws -> (PersistentStoreCoordinator, TemporaryDirectory) {
        let gadget = EntityDescription(name: "Gadget", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "",
                maximum: 20, regularExpression: "[A-Za-z ]*"),
            AttributeDescription(name: "count", type: .integer16, isOptional: false, minimum: 0),
            AttributeDescription(name: "price", type: .double),
            AttributeDescription(name: "madeAt", type: .date),
            AttributeDescription(name: "serial", type: .uuid),
        ], managedObjectClassName: "Gadget")
        let model = try ManagedObjectModel(entities: [gadget], classes: [Gadget.self])
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: directory.file("gadgets.sqlite"))
        return (coordinator, directory)
    }

    @Test func typedPropertiesReadWriteAndSurviveAStore() throws {
        let (coordinator, directory) = try Self.stack()
        _ = directory
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let serial = UUID()
        try context.performAndWait {
            let gadget = try #require(try context.insertNewObject(forEntityName: "Gadget") as? Gadget)
            #expect(gadget.count == 0, "a nil scalar reads as zero")
            #expect(gadget.price == nil)
            gadget.name = "Widget"
            gadget.count = 7
            gadget.price = 9.5
            gadget.serial = serial
            #expect(gadget.changedValues()["name"] == "Widget")
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let gadgets = try reader.fetch(FetchRequest<Gadget>(entityName: "Gadget"))
            let gadget = try #require(gadgets.first)
            #expect(gadget.name == "Widget" && gadget.count == 7 && gadget.price == 9.5 && gadget.serial == serial)
            // A fault fires when a typed property is read.
            let fault = try reader.object(with: gadget.objectID)
            #expect(fault === gadget)
        }
    }

    @Test func validationRulesAreCheckedAtSave() throws {
        let (coordinator, directory) = try Self.stack()
        _ = directory
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let gadget = try #require(try context.insertNewObject(forEntityName: "Gadget") as? Gadget)
            gadget.name = "Bad-Name!"
            gadget.count = -1
            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.validation(let failures) = error else { return false }
                return Set(failures.map(\.key)) == ["name", "count"]
            }
            #expect(throws: ValidationFailure.self) { try gadget.validateValue("x", forKey: "count") }
            #expect(throws: ValidationFailure.self) { try gadget.validateValue(.integer(70_000), forKey: "count") }
            #expect(throws: Never.self) { try gadget.validateValue(.integer(3), forKey: "count") }
        }
    }

    @Test func settingAValueOfTheWrongTypeTraps() async {
        await #expect(processExitsWith: .failure) {
            guard let stack = try? TypedEntityTests.stack() else { return }
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = stack.0
            context.performAndWait {
                let gadget = try? context.insertNewObject(forEntityName: "Gadget")
                gadget?.setValue("seven", forKey: "count")
            }
        }
    }

    @Test func storeRecordsAndChecksVersionHashes() throws {
        let (coordinator, directory) = try Self.stack()
        let store = try #require(coordinator.persistentStores.first)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: directory.file("gadgets.sqlite"))
        #expect(metadata.entityVersionHashes == coordinator.managedObjectModel.entityVersionHashes)
        #expect(metadata.storeUUID == store.identifier && metadata.storeType == "SQLite")
        let changed = EntityDescription(name: "Gadget", attributes: [AttributeDescription(name: "name", type: .string)])
        let other = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [changed]))
        #expect {
            try other.addPersistentStore(ofType: .sqlite, at: directory.file("gadgets.sqlite"))
        } throws: { error in
            guard case ObjectGraphError.incompatibleModel(_, let entities, _) = error else { return false }
            return entities == ["Gadget"]
        }
    }
}

import Foundation
import Testing
@testable import ObjectGraph

/// Transformable attributes through named value transformers (Core Data's `valueTransformerName`): registered
/// transformers in both directions through a save and a fresh read, the keyed-archive default, and every error a
/// user can meet — none of which changes the attribute.
@Suite(.serialized) struct ValueTransformerTests {
    struct Point: Codable, Sendable, Equatable {
        var x: Double
        var y: Double
    }

    /// A transformer that refuses values with a negative x (so the failure path can be seen).
    struct PickyPoints: AttributeValueTransformer {
        struct Refused: Error {}
        func data(for value: any Sendable) throws -> Data {
            guard let point = value as? Point, point.x >= 0 else { throw Refused() }
            return try CodableValueTransformer<Point>().data(for: point)
        }
        func value(from data: Data) throws -> any Sendable { try CodableValueTransformer<Point>().value(from: data) }
    }

    static func model(transformer: String?) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [EntityDescription(name: "Pin", attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "where", type: .transformable, valueTransformerName: transformer),
        ])])
    }

    static func memoryContext(_ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .inMemory, configurationName: nil, at: nil, options: PersistentStoreOptions())
        return MigrationFixtures.context(coordinator)
    }

    @Test func aRegisteredTransformerStoresAndReadsItsValue() throws {
        let name = "PointTransformer-\(UUID().uuidString)"
        ValueTransformers.register(CodableValueTransformer<Point>(), forName: name)
        defer { ValueTransformers.unregister(name: name) }
        #expect(ValueTransformers.names.contains(name))
        let directory = TemporaryDirectory()
        let model = try Self.model(transformer: name)
        let url = directory.file("pins.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
            let context = MigrationFixtures.context(coordinator)
            try context.performAndWait {
                let pin = try context.insertNewObject(forEntityName: "Pin")
                try pin.setTransformedValue(Point(x: 1.5, y: -2), forKey: "where")
                let empty = try context.insertNewObject(forEntityName: "Pin")
                empty["title"] = "nowhere"
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        let context = MigrationFixtures.context(coordinator)
        try context.performAndWait {
            let pins = try context.fetch(FetchRequest<ManagedObject>(entityName: "Pin"))
            let points = try pins.map { try $0.transformedValue(forKey: "where", as: Point.self) }
            #expect(points.compactMap { $0 } == [Point(x: 1.5, y: -2)])
            #expect(points.contains(nil), "an unset attribute reads nil")
        }
        // The column holds the transformer's bytes (JSON), not an archive.
        let stored = try MigrationFixtures.rows(url, "SELECT ZWHERE FROM ZPIN WHERE ZWHERE IS NOT NULL")
        guard case .blob(let bytes)? = stored.first?.first else {
            Issue.record("no blob: \(stored)")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"x":1.5,"y":-2}"#)
    }

    @Test func withoutATransformerNameTheValueIsAKeyedArchive() throws {
        for name in [nil, "NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData"] as [String?] {
            let context = try Self.memoryContext(Self.model(transformer: name))
            try context.performAndWait {
                let pin = try context.insertNewObject(forEntityName: "Pin")
                let value = ArchivedValue.array([.string("a"), .integer(2)])
                try pin.setTransformedValue(value, forKey: "where")
                #expect(try pin.transformedValue(forKey: "where", as: ArchivedValue.self) == value)
                #expect(pin["where"] as Data? == value.keyedArchive())
                // Anything but an ArchivedValue is refused, and the attribute keeps its value.
                #expect(throws: ObjectGraphError.self) { try pin.setTransformedValue(Point(x: 0, y: 0), forKey: "where") }
                #expect(try pin.transformedValue(forKey: "where", as: ArchivedValue.self) == value)
            }
        }
    }

    @Test func errorsNameTheTransformerAndLeaveTheValue() throws {
        let name = "Picky-\(UUID().uuidString)"
        let context = try Self.memoryContext(Self.model(transformer: name))
        try context.performAndWait {
            let pin = try context.insertNewObject(forEntityName: "Pin")
            // Nothing registered under the name.
            let missing = #expect(throws: ObjectGraphError.self) {
                try pin.setTransformedValue(Point(x: 1, y: 1), forKey: "where")
            }
            guard case .valueTransformerNotFound(name, "Pin", "where")? = missing else {
                Issue.record("wrong error: \(String(describing: missing))")
                return
            }
            ValueTransformers.register(PickyPoints(), forName: name)
            defer { ValueTransformers.unregister(name: name) }
            try pin.setTransformedValue(Point(x: 1, y: 1), forKey: "where")
            // The transformer refuses a value: an error, and the old value stays.
            do {
                try pin.setTransformedValue(Point(x: -1, y: 1), forKey: "where")
                Issue.record("a refused value was set")
            } catch {
                guard case .valueTransformFailed(let entity, let attribute, let reason)? = error as? ObjectGraphError else {
                    Issue.record("wrong error: \(error)")
                    return
                }
                #expect(entity == "Pin" && attribute == "where" && reason.contains(name))
            }
            #expect(try pin.transformedValue(forKey: "where", as: Point.self) == Point(x: 1, y: 1))
            // Bytes the transformer cannot read are an error, never a crash or a silent nil.
            pin["where"] = Data("not json".utf8)
            #expect(throws: ObjectGraphError.self) { try pin.transformedValue(forKey: "where") }
            // A key that is not a Transformable attribute.
            let notTransformable = #expect(throws: ObjectGraphError.self) { try pin.transformedValue(forKey: "title") }
            guard case .unknownKey("Pin", "title")? = notTransformable else {
                Issue.record("wrong error: \(String(describing: notTransformable))")
                return
            }
        }
    }
}

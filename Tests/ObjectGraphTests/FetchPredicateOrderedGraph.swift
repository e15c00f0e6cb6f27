import Foundation
import TestSupport

@testable import ObjectGraph

/// A graph with ordered relationships, stored three times (SQLite, in-memory and atomic store) with the same
/// values, so that indexes (`items[FIRST]`, `labels[2]`) and key paths through several to-many relationships
/// can be answered four ways: compiled to SQL, by the in-memory store, by the atomic store, and evaluated on
/// the objects.
///
/// Owner → items (ordered one-to-many, inverse Item.owner: the order is in Item's `Z_FOK_` column), Owner ↔
/// labels (ordered many-to-many, inverse Label.owners unordered: the order is in the join table), Owner → pals
/// (unordered, no inverse), Item → label (to-one). Elements are added in an order unrelated to their primary
/// keys, so that an index that ignored the order would be caught.
final class OrderedPredicateGraph: @unchecked Sendable {
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "owner", isToMany: true, isOrdered: true),
                    RelationshipDescription(
                        name: "labels", destination: "Label", inverse: "owners", isToMany: true, isOrdered: true),
                    RelationshipDescription(name: "pals", destination: "Owner", isToMany: true),
                ]),
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "weight", type: .integer64),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
                    RelationshipDescription(name: "label", destination: "Label"),
                ]),
            EntityDescription(
                name: "Label",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "owners", destination: "Owner", inverse: "labels", isToMany: true),
                ]),
        ])
    }

    static let names: [AttributeValue] = [.string("a"), .string("b"), .string("Zoë"), .string("zoe"), .null]

    let directory = TemporaryDirectory(prefix: "ordered-graph")
    let sqlite: PredicateGraph.Side
    let memory: PredicateGraph.Side
    let atomic: PredicateGraph.Side
    /// Every object of the SQLite side, by entity.
    let objects: [String: [ManagedObject]]

    init(owners: Int = 60, items: Int = 150, labels: Int = 8, seed: UInt64 = 77) throws {
        let model = try Self.makeModel()
        var sides: [PredicateGraph.Side] = []
        for kind in [PersistentStoreType.sqlite, .inMemory, .atomic] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: kind, at: directory.file(kind == .atomic ? "ordered.binary" : "ordered.sqlite"))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                var random = SeededRandom(seed: seed)
                try Self.populate(context, owners: owners, items: items, labels: labels, random: &random)
            }
            sides.append(try context.performAndWait { try Self.side(context) })
        }
        sqlite = sides[0]
        memory = sides[1]
        atomic = sides[2]
        let context = sqlite.context
        objects = try context.performAndWait {
            var objects: [String: [ManagedObject]] = [:]
            for name in ["Owner", "Item", "Label"] {
                objects[name] = try context.fetch(FetchRequest<ManagedObject>(entityName: name))
            }
            return objects
        }
    }

    static func side(_ context: ManagedObjectContext) throws -> PredicateGraph.Side {
        var serials: [ManagedObjectID: Int64] = [:]
        var ids: [String: [Int64: ManagedObjectID]] = [:]
        for name in ["Owner", "Item", "Label"] {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: name)) {
                let serial = object.value(forKey: "serial").int64Value ?? -1
                serials[object.objectID] = serial
                ids[name, default: [:]][serial] = object.objectID
            }
        }
        return PredicateGraph.Side(context: context, serials: serials, ids: ids)
    }

    static func populate(
        _ context: ManagedObjectContext, owners: Int, items: Int, labels: Int, random: inout SeededRandom
    ) throws {
        var labelObjects: [ManagedObject] = []
        for index in 0..<labels {
            let label = try context.insertNewObject(forEntityName: "Label")
            label.setValue(.integer(Int64(index)), forKey: "serial")
            label.setValue(random.pick(names), forKey: "name")
            labelObjects.append(label)
        }
        var itemObjects: [ManagedObject] = []
        for index in 0..<items {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(.integer(Int64(index)), forKey: "serial")
            item.setValue(random.pick(names), forKey: "name")
            item.setValue(random.chance(0.2) ? .null : .integer(Int64(Int.random(in: 0...5, using: &random))),
                forKey: "weight")
            if random.chance(0.7) { item.setRelatedObject(random.pick(labelObjects), forKey: "label") }
            itemObjects.append(item)
        }
        // Items go to owners in a shuffled order, so that an owner's order differs from primary-key order.
        var unassigned = itemObjects.shuffled(using: &random)
        var ownerObjects: [ManagedObject] = []
        for index in 0..<owners {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner.setValue(.integer(Int64(index)), forKey: "serial")
            owner.setValue(random.pick(names), forKey: "name")
            for _ in 0..<Int.random(in: 0...4, using: &random) where !unassigned.isEmpty {
                owner.addRelatedObject(unassigned.removeLast(), forKey: "items")
            }
            for label in labelObjects.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)) {
                owner.addRelatedObject(label, forKey: "labels")
            }
            if !ownerObjects.isEmpty {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    owner.addRelatedObject(random.pick(ownerObjects), forKey: "pals")
                }
            }
            ownerObjects.append(owner)
        }
        try context.save()
    }

    /// The serials `side`'s store fetches for `predicate` on `entity`.
    func fetch(_ predicate: FetchPredicate, entity: String, on side: PredicateGraph.Side) throws -> Set<Int64> {
        let request = FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)
        let context = side.context
        let ids = try context.performAndWait { try context.fetchObjectIDs(request) }
        return Set(ids.compactMap { side.serials[$0] })
    }

    /// The serials of the objects of `entity` that satisfy `predicate` in memory.
    func filter(_ predicate: FetchPredicate, entity: String) -> Set<Int64> {
        let objects = self.objects[entity] ?? []
        return sqlite.context.performAndWait {
            Set(objects.filter(predicate).compactMap { $0.value(forKey: "serial").int64Value })
        }
    }

    /// SQL, the in-memory store's, the atomic store's and the objects' answers.
    func answers(
        _ predicate: FetchPredicate, entity: String
    ) throws -> (sql: Set<Int64>, store: Set<Int64>, atomic: Set<Int64>, objects: Set<Int64>) {
        (try fetch(predicate, entity: entity, on: sqlite), try fetch(predicate, entity: entity, on: memory),
         try fetch(predicate, entity: entity, on: atomic), filter(predicate, entity: entity))
    }
}

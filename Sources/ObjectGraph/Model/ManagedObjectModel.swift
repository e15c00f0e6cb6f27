/// The schema of an object graph: its entities.
///
/// The counterpart of Core Data's `NSManagedObjectModel`. Immutable and shareable across queues.
/// Entities are numbered as Core Data numbers them in a store (`Z_ENT`): sorted by name, from 1.
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    private let byName: [String: EntityDescription]
    private let numbers: [String: Int]

    /// Creates a model from entity descriptions.
    ///
    /// - Throws: ``ModelError`` when two entities share a name or an entity repeats an attribute name.
    public init(entities: [EntityDescription]) throws(ModelError) {
        var byName: [String: EntityDescription] = [:]
        for entity in entities {
            guard byName[entity.name] == nil else { throw .duplicateEntity(entity.name) }
            var seen: Set<String> = []
            for attribute in entity.attributes where !seen.insert(attribute.name).inserted {
                throw .duplicateProperty(entity: entity.name, property: attribute.name)
            }
            byName[entity.name] = entity
        }
        self.entities = entities
        self.byName = byName
        var numbers: [String: Int] = [:]
        for (offset, name) in byName.keys.sorted().enumerated() { numbers[name] = offset + 1 }
        self.numbers = numbers
    }

    /// The entities by name, as Core Data's `entitiesByName`.
    public var entitiesByName: [String: EntityDescription] { byName }

    /// The entity named `name`, if the model has it.
    public func entity(named name: String) -> EntityDescription? { byName[name] }

    /// The entity number Core Data writes in `Z_ENT` for `entity`.
    public func entityNumber(of entity: EntityDescription) -> Int { numbers[entity.name] ?? 0 }

    public var description: String { entities.map(\.description).joined(separator: "\n") }
}

/// Why a model cannot be built.
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two entities have the same name.
    case duplicateEntity(String)
    /// An entity declares two properties with the same name.
    case duplicateProperty(entity: String, property: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name): "The model declares entity '\(name)' more than once."
        case let .duplicateProperty(entity, property):
            "Entity '\(entity)' declares property '\(property)' more than once."
        }
    }
}

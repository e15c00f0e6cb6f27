/// Why a model cannot be built: which entity and property are at fault, and how.
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two entities have the same name.
    case duplicateEntity(String)
    /// An entity declares (or inherits) two properties with the same name.
    case duplicateProperty(entity: String, property: String)
    /// An entity or property has an empty or unusable name.
    case invalidName(entity: String, property: String?)
    /// An entity names a parent that the model does not have.
    case unknownParentEntity(entity: String, parent: String)
    /// Entities inherit from each other in a circle.
    case inheritanceCycle([String])
    /// A relationship points at an entity the model does not have.
    case unknownDestinationEntity(entity: String, relationship: String, destination: String)
    /// A relationship's inverse does not exist on its destination.
    case unknownInverse(entity: String, relationship: String, inverse: String, destination: String)
    /// A relationship's inverse does not point back at it.
    case inverseMismatch(entity: String, relationship: String, inverse: String, reason: String)
    /// A configuration lists an entity the model does not have.
    case unknownConfigurationEntity(configuration: String, entity: String)
    /// A fetch request template names an entity the model does not have.
    case unknownFetchRequestEntity(template: String, entity: String)
    /// A uniqueness constraint or fetch index names a property the entity does not have.
    case unknownIndexedProperty(entity: String, property: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name): "The model declares entity '\(name)' more than once."
        case let .duplicateProperty(entity, property):
            "Entity '\(entity)' declares or inherits property '\(property)' more than once."
        case let .invalidName(entity, property):
            property.map { "Entity '\(entity)' has a property with an invalid name '\($0)'." }
                ?? "The model has an entity with an invalid name '\(entity)'."
        case let .unknownParentEntity(entity, parent):
            "Entity '\(entity)' inherits from '\(parent)', which the model does not declare."
        case .inheritanceCycle(let chain): "Entities inherit from each other in a circle: " + chain.joined(separator: " → ")
        case let .unknownDestinationEntity(entity, relationship, destination):
            "Relationship '\(entity).\(relationship)' points at entity '\(destination)', which the model does not declare."
        case let .unknownInverse(entity, relationship, inverse, destination):
            "Relationship '\(entity).\(relationship)' names inverse '\(inverse)', but '\(destination)' has no such relationship."
        case let .inverseMismatch(entity, relationship, inverse, reason):
            "Relationship '\(entity).\(relationship)' and its inverse '\(inverse)' do not agree: \(reason)."
        case let .unknownConfigurationEntity(configuration, entity):
            "Configuration '\(configuration)' lists entity '\(entity)', which the model does not declare."
        case let .unknownFetchRequestEntity(template, entity):
            "Fetch request '\(template)' fetches entity '\(entity)', which the model does not declare."
        case let .unknownIndexedProperty(entity, property):
            "Entity '\(entity)' constrains or indexes '\(property)', which it does not have."
        }
    }
}

/// Where each named part of a model file is, so that an inconsistency the model finds after loading
/// (an unknown inverse, a duplicate property) can still be reported at its line.
struct ModelSourceLines: Sendable {
    /// Lines of `<entity>` elements by entity name (more than one when the name repeats).
    var entities: [String: [Int]] = [:]
    /// Lines of `<attribute>` and `<relationship>` elements by `Entity.property`.
    var properties: [String: [Int]] = [:]
    /// Lines of the constraint and index elements that name a property, by `Entity.property`.
    var indexedProperties: [String: Int] = [:]
    /// Lines of `<memberEntity>` elements by `configuration/entity`.
    var members: [String: Int] = [:]
    /// Lines of model-level `<fetchRequest>` elements by name.
    var templates: [String: Int] = [:]

    /// Notes that the element for `entity` is at `line`.
    mutating func entity(_ entity: String, at line: Int?) {
        if let line { entities[entity, default: []].append(line) }
    }

    /// Notes that the element for `entity.property` is at `line`.
    mutating func property(_ property: String, of entity: String, at line: Int?) {
        if let line { properties["\(entity).\(property)", default: []].append(line) }
    }

    /// The line best showing where `error` is: the element it names (the second one for duplicates).
    func line(for error: ModelError) -> Int? {
        switch error {
        case .duplicateEntity(let name):
            return entities[name]?.dropFirst().first ?? entities[name]?.first
        case let .duplicateProperty(entity, property):
            return properties["\(entity).\(property)"]?.last ?? entities[entity]?.first
        case let .invalidName(entity, property):
            return property.flatMap { properties["\(entity).\($0)"]?.first } ?? entities[entity]?.first
        case .unknownParentEntity(let entity, _):
            return entities[entity]?.first
        case .inheritanceCycle(let chain):
            return chain.first.flatMap { entities[$0]?.first }
        case let .unknownDestinationEntity(entity, relationship, _),
            let .unknownInverse(entity, relationship, _, _),
            let .inverseMismatch(entity, relationship, _, _):
            return properties["\(entity).\(relationship)"]?.first ?? entities[entity]?.first
        case let .unknownConfigurationEntity(configuration, entity):
            return members["\(configuration)/\(entity)"]
        case .unknownFetchRequestEntity(let template, _):
            return templates[template]
        case let .unknownIndexedProperty(entity, property):
            return indexedProperties["\(entity).\(property)"] ?? entities[entity]?.first
        }
    }
}

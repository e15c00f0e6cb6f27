/// The inferred mapping of one migration step: which source entity, attribute and relationship each
/// destination one comes from, and the entity numbers the destination gets in the store.
///
/// Inference follows Core Data's lightweight rules: an element maps to the source element named by its
/// `renamingIdentifier`, or else to the one of the same name; everything else is added or removed. What
/// cannot be carried over in place fails with ``ObjectGraphError/migrationNotInferable(path:from:to:change:reason:)``.
struct MigrationMapping {
    /// The source model, numbered as the store numbers its entities.
    let source: ManagedObjectModel
    /// The destination model, numbered as the store will number them (kept numbers, new ones for new entities).
    let destination: ManagedObjectModel
    /// Destination entity name → source entity name, for entities that existed.
    let entitySource: [String: String]
    /// Destination entity name → destination attribute name → source attribute name (inherited ones included).
    let attributeSource: [String: [String: String]]
    /// Destination entity name → destination relationship name → source relationship name.
    let relationshipSource: [String: [String: String]]
    /// What the step changes.
    let changes: [MigrationChange]

    /// Infers the mapping from `source` (numbered as the store numbers it) to `destination`.
    ///
    /// - Throws: ``ObjectGraphError/migrationNotInferable(path:from:to:change:reason:)`` for a change lightweight
    ///   migration cannot make in place.
    init(
        from source: ManagedObjectModel, to destination: ManagedObjectModel, path: String,
        sourceName: String, destinationName: String
    ) throws(ObjectGraphError) {
        func refuse(_ change: String, _ reason: String) -> ObjectGraphError {
            .migrationNotInferable(path: path, from: sourceName, to: destinationName, change: change, reason: reason)
        }
        self.source = source
        var changes: [MigrationChange] = []
        var entitySource: [String: String] = [:]
        var taken: [String: String] = [:]
        for entity in destination.entities {
            let candidates = [entity.renamingIdentifier, entity.name].compactMap { $0 }
            guard let found = candidates.first(where: { source.entity(named: $0) != nil }) else { continue }
            if let other = taken[found] {
                throw refuse("entities \(other) and \(entity.name) both come from \(found)",
                    "one source entity can become only one destination entity")
            }
            taken[found] = entity.name
            entitySource[entity.name] = found
        }
        // Hierarchies must stay as they are: rows cannot change tables or keys in place.
        for entity in destination.entities {
            guard let sourceName = entitySource[entity.name], let old = source.entity(named: sourceName) else {
                continue
            }
            let mappedParent = entity.parentEntityName.map { entitySource[$0] ?? "(new entity \($0))" }
            if mappedParent != old.parentEntityName {
                let from = old.parentEntityName ?? "no parent"
                let to = entity.parentEntityName ?? "no parent"
                throw refuse("entity \(entity.name) moves from \(from) to \(to)",
                    "moving an entity into or out of an inheritance hierarchy moves its rows to another table with "
                        + "new keys, which lightweight migration does not do")
            }
        }
        for entity in destination.entities {
            if let sourceName = entitySource[entity.name] {
                if sourceName != entity.name { changes.append(.entityRenamed(from: sourceName, to: entity.name)) }
            } else {
                changes.append(.entityAdded(entity.name))
            }
        }
        let mappedSources = Set(entitySource.values)
        for entity in source.entities where !mappedSources.contains(entity.name) {
            changes.append(.entityRemoved(entity.name))
        }

        var attributeSource: [String: [String: String]] = [:]
        var relationshipSource: [String: [String: String]] = [:]
        for entity in destination.entities {
            guard let sourceName = entitySource[entity.name], let old = source.entity(named: sourceName) else { continue }
            attributeSource[entity.name] = try Self.mapAttributes(
                of: entity, from: old, ownChanges: &changes, refuse: refuse)
            relationshipSource[entity.name] = try Self.mapRelationships(
                of: entity, from: old, entitySource: entitySource, ownChanges: &changes, refuse: refuse)
            changes += Self.indexChanges(of: entity, from: old)
        }
        // Numbers: kept for entities that existed, new ones (after the highest in use) for new entities.
        var numbers: [String: Int] = [:]
        var next = (source.entityNumbersByName.values.max() ?? 0) + 1
        let ordered = destination.entities.sorted { destination.entityNumber(of: $0) < destination.entityNumber(of: $1) }
        for entity in ordered {
            if let sourceName = entitySource[entity.name], let old = source.entity(named: sourceName) {
                numbers[entity.name] = source.entityNumber(of: old)
            } else {
                numbers[entity.name] = next
                next += 1
            }
        }
        self.destination = ManagedObjectModel(copying: destination, bundleURL: destination.bundleURL, entityNumbers: numbers)
        self.entitySource = entitySource
        self.attributeSource = attributeSource
        self.relationshipSource = relationshipSource
        self.changes = changes
    }

    /// Maps the stored attributes of `entity` (declared or inherited) onto those of `old`.
    private static func mapAttributes(
        of entity: EntityDescription, from old: EntityDescription, ownChanges changes: inout [MigrationChange],
        refuse: (String, String) -> ObjectGraphError
    ) throws(ObjectGraphError) -> [String: String] {
        var map: [String: String] = [:]
        let stored = entity.attributes.filter { !$0.isTransient }
        let ownNames = Set(entity.ownAttributes.map(\.name))
        for attribute in stored {
            let candidates = [attribute.renamingIdentifier, attribute.name].compactMap { $0 }
            let previous = candidates.lazy.compactMap { old.attribute(named: $0) }.first { !$0.isTransient }
            let reports = ownNames.contains(attribute.name)  // inherited ones are reported on their parent
            let key = "\(entity.name).\(attribute.name)"
            guard let previous else {
                if !attribute.isOptional && attribute.defaultValue.isNull {
                    throw refuse("attribute \(key) added",
                        "it is required and has no default value, so existing rows would have no value")
                }
                if reports {
                    changes.append(.attributeAdded(entity: entity.name, attribute: attribute.name,
                        defaultValue: attribute.defaultValue))
                }
                continue
            }
            if map.values.contains(previous.name) {
                throw refuse("two attributes of \(entity.name) come from \(previous.name)",
                    "one source attribute can become only one destination attribute")
            }
            map[attribute.name] = previous.name
            guard reports else { continue }
            if previous.name != attribute.name {
                changes.append(.attributeRenamed(entity: entity.name, from: previous.name, to: attribute.name))
            }
            if previous.attributeType != attribute.attributeType {
                guard isWidening(previous.attributeType, to: attribute.attributeType) else {
                    throw refuse("attribute \(key) changes type from \(previous.attributeType) to \(attribute.attributeType)",
                        "only widening types is inferred (Integer 16 → 32 → 64, Float → Double)")
                }
                changes.append(.attributeWidened(entity: entity.name, attribute: attribute.name,
                    from: previous.attributeType, to: attribute.attributeType))
            }
            if previous.isOptional && !attribute.isOptional {
                guard !attribute.defaultValue.isNull else {
                    throw refuse("attribute \(key) becomes required",
                        "it has no default value for the rows that have no value")
                }
                changes.append(.attributeMadeRequired(entity: entity.name, attribute: attribute.name,
                    defaultValue: attribute.defaultValue))
            } else if !previous.isOptional && attribute.isOptional {
                changes.append(.attributeMadeOptional(entity: entity.name, attribute: attribute.name))
            }
        }
        let kept = Set(map.values)
        for attribute in old.ownAttributes where !attribute.isTransient && !kept.contains(attribute.name) {
            changes.append(.attributeRemoved(entity: entity.name, attribute: attribute.name))
        }
        return map
    }

    /// Whether values of type `from` fit `to` unchanged.
    static func isWidening(_ from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64), (.float, .double): true
        default: false
        }
    }

    /// Maps the stored relationships of `entity` onto those of `old`.
    private static func mapRelationships(
        of entity: EntityDescription, from old: EntityDescription, entitySource: [String: String],
        ownChanges changes: inout [MigrationChange], refuse: (String, String) -> ObjectGraphError
    ) throws(ObjectGraphError) -> [String: String] {
        var map: [String: String] = [:]
        let ownNames = Set(entity.ownRelationships.map(\.name))
        for relationship in entity.relationships where !relationship.isTransient {
            let candidates = [relationship.renamingIdentifier, relationship.name].compactMap { $0 }
            let previous = candidates.lazy.compactMap { old.relationship(named: $0) }.first { !$0.isTransient }
            let reports = ownNames.contains(relationship.name)
            let key = "\(entity.name).\(relationship.name)"
            guard let previous, entitySource[relationship.destinationEntityName] != nil else {
                if reports { changes.append(.relationshipAdded(entity: entity.name, relationship: relationship.name)) }
                continue
            }
            guard entitySource[relationship.destinationEntityName] == previous.destinationEntityName else {
                throw refuse("relationship \(key) points to \(relationship.destinationEntityName) instead of "
                    + previous.destinationEntityName, "its links would point at rows of another entity")
            }
            map[relationship.name] = previous.name
            guard reports else { continue }
            if previous.name != relationship.name {
                changes.append(.relationshipRenamed(entity: entity.name, from: previous.name, to: relationship.name))
            }
            if previous.isToMany != relationship.isToMany {
                changes.append(.relationshipCardinalityChanged(entity: entity.name, relationship: relationship.name,
                    toMany: relationship.isToMany))
            } else if previous.isOrdered != relationship.isOrdered && relationship.isToMany {
                changes.append(.relationshipOrderingChanged(entity: entity.name, relationship: relationship.name,
                    ordered: relationship.isOrdered))
            }
        }
        let kept = Set(map.values)
        for relationship in old.ownRelationships where !relationship.isTransient && !kept.contains(relationship.name) {
            changes.append(.relationshipRemoved(entity: entity.name, relationship: relationship.name))
        }
        return map
    }

    /// Fetch indexes and uniqueness constraints added or removed (by name), for the report.
    private static func indexChanges(of entity: EntityDescription, from old: EntityDescription) -> [MigrationChange] {
        func names(_ entity: EntityDescription) -> Set<String> {
            Set(entity.fetchIndexes.map { "\($0.name)(\($0.elements.map(\.property).joined(separator: ",")))" }
                + entity.uniquenessConstraints.map { "unique(\($0.joined(separator: ",")))" })
        }
        let before = names(old)
        let after = names(entity)
        return after.subtracting(before).sorted().map { .indexAdded(entity: entity.name, index: $0) }
            + before.subtracting(after).sorted().map { .indexRemoved(entity: entity.name, index: $0) }
    }
}

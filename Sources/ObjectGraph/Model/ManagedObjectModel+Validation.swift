extension ManagedObjectModel {
    /// Checks names, destinations, inverses, configurations, templates, constraints and indexes.
    func validate() throws(ModelError) {
        for entity in entities {
            var seen: Set<String> = []
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                    throw .invalidName(entity: entity.name, property: name)
                }
                guard seen.insert(name).inserted else { throw .duplicateProperty(entity: entity.name, property: name) }
            }
            for relationship in entity.ownRelationships {
                try validate(relationship, of: entity)
            }
            for names in entity.uniquenessConstraints + entity.fetchIndexes.map({ $0.elements.map(\.property) }) {
                for name in names where !seen.contains(name) {
                    throw .unknownIndexedProperty(entity: entity.name, property: name)
                }
            }
        }
        for configuration in configurations {
            for name in configuration.entityNames where entity(named: name) == nil {
                throw .unknownConfigurationEntity(configuration: configuration.name, entity: name)
            }
        }
        for template in fetchRequestTemplates where entity(named: template.entityName) == nil {
            throw .unknownFetchRequestEntity(template: template.name, entity: template.entityName)
        }
    }

    private func validate(_ relationship: RelationshipDescription, of entity: EntityDescription) throws(ModelError) {
        guard let destination = self.entity(named: relationship.destinationEntityName) else {
            throw .unknownDestinationEntity(entity: entity.name, relationship: relationship.name,
                destination: relationship.destinationEntityName)
        }
        guard let inverseName = relationship.inverseName else { return }
        guard let inverse = destination.relationship(named: inverseName) else {
            throw .unknownInverse(entity: entity.name, relationship: relationship.name, inverse: inverseName,
                destination: destination.name)
        }
        // The inverse must point back at this entity (or one of its ancestors) …
        let ancestors = Set(sequence(first: entity) { $0.parentEntityName.flatMap(self.entity(named:)) }.map(\.name))
        guard ancestors.contains(inverse.destinationEntityName) else {
            throw .inverseMismatch(entity: entity.name, relationship: relationship.name, inverse: inverseName,
                reason: "'\(destination.name).\(inverseName)' points at '\(inverse.destinationEntityName)', "
                    + "not '\(entity.name)'")
        }
        // … and, when it names an inverse itself, name this relationship.
        if let back = inverse.inverseName, back != relationship.name {
            throw .inverseMismatch(entity: entity.name, relationship: relationship.name, inverse: inverseName,
                reason: "'\(destination.name).\(inverseName)' names '\(back)' as its inverse")
        }
    }
}

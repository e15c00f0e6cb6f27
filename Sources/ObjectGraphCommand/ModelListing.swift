import ObjectGraph

/// A model's entities, fetch request templates and configurations, as JSON or as a readable listing.
///
/// Each entity lists only its own properties; inherited ones are listed on the entity that declares them.
struct ModelListing {
    /// The model listed.
    let model: ManagedObjectModel

    /// The listing as JSON: `{"entities": […], "fetchRequests": […], "configurations": […]}`.
    func json() -> JSONOutput {
        .object([
            ("entities", .array(model.entities.map(entityJSON))),
            ("fetchRequests", .array(model.fetchRequestTemplates.map { template in
                .object([
                    ("name", .string(template.name)),
                    ("entity", .string(template.entityName)),
                    ("predicate", .optionalString(template.predicateFormat)),
                ])
            })),
            ("configurations", .array(model.configurations.map { configuration in
                .object([
                    ("name", .string(configuration.name)),
                    ("entities", .array(configuration.entityNames.map(JSONOutput.string))),
                ])
            })),
        ])
    }

    private func entityJSON(_ entity: EntityDescription) -> JSONOutput {
        .object([
            ("name", .string(entity.name)),
            ("parent", .optionalString(entity.parentEntityName)),
            ("abstract", .bool(entity.isAbstract)),
            ("attributes", .array(entity.ownDeclaredAttributes.map(attributeJSON))),
            ("relationships", .array(entity.ownRelationships.map { relationship in
                .object([
                    ("name", .string(relationship.name)),
                    ("destination", .string(relationship.destinationEntityName)),
                    ("inverse", .optionalString(relationship.inverseName)),
                    ("toMany", .bool(relationship.isToMany)),
                    ("ordered", .bool(relationship.isOrdered)),
                    ("deleteRule", .string(relationship.deleteRule.description)),
                    ("minCount", .integer(relationship.minCount)),
                    ("maxCount", .integer(relationship.maxCount)),
                ])
            })),
        ])
    }

    /// An attribute as JSON; a composite's also lists its `elements`.
    private func attributeJSON(_ attribute: AttributeDescription) -> JSONOutput {
        var fields: [(String, JSONOutput)] = [
            ("name", .string(attribute.name)),
            ("type", .string(attribute.attributeType.description)),
            ("optional", .bool(attribute.isOptional)),
            ("transient", .bool(attribute.isTransient)),
            ("textIndex", .bool(attribute.isIndexedBySpotlight)),
            ("default", ValueFormatting.json(attribute.defaultValue)),
        ]
        if attribute.attributeType == .composite { fields.append(("elements", .array(attribute.elements.map(attributeJSON)))) }
        return .object(fields)
    }

    /// Text-table rows for an attribute; a composite's elements follow it, indented, with their column names.
    private func attributeRows(_ attribute: AttributeDescription, indent: String = "  ", path: String = "") -> [[String]] {
        var flags: [String] = [attribute.isOptional ? "optional" : "required"]
        if attribute.isTransient { flags.append("transient") }
        if attribute.isIndexedBySpotlight { flags.append("text index") }
        if !attribute.defaultValue.isNull { flags.append("default \(ValueFormatting.json(attribute.defaultValue).rendered())") }
        let fullName = path.isEmpty ? attribute.name : path + "." + attribute.name
        guard attribute.attributeType == .composite else {
            if !path.isEmpty {
                var element = attribute
                element.name = fullName
                flags.append("column \(element.columnName)")
            }
            return [[indent + attribute.name, attribute.attributeType.description, flags.joined(separator: ", ")]]
        }
        flags.append("\(attribute.elements.count) element\(attribute.elements.count == 1 ? "" : "s")")
        var rows = [[indent + attribute.name, "Composite", flags.joined(separator: ", ")]]
        for element in attribute.elements { rows += attributeRows(element, indent: indent + "  ", path: fullName) }
        return rows
    }

    /// The listing as text: each entity with its attributes and relationships, then the fetch requests
    /// and configurations.
    func text() -> String {
        var lines: [String] = []
        if let version = model.versionName { lines += ["Model version: \(version)", ""] }
        for entity in model.entities {
            var heading = "entity \(entity.name)"
            if let parent = entity.parentEntityName { heading += " : \(parent)" }
            if entity.isAbstract { heading += " (abstract)" }
            if let className = entity.managedObjectClassName, className != entity.name { heading += " class \(className)" }
            lines.append(heading)
            if entity.ownAttributes.isEmpty && entity.ownRelationships.isEmpty { lines.append("  (no own properties)") }
            var table = TextTable(headers: ["", "", ""])
            for attribute in entity.ownDeclaredAttributes { table.rows += attributeRows(attribute) }
            for relationship in entity.ownRelationships {
                let destination = relationship.isToMany
                    ? "→ [\(relationship.destinationEntityName)]\(relationship.isOrdered ? " ordered" : "")"
                    : "→ \(relationship.destinationEntityName)"
                var flags = [relationship.isOptional ? "optional" : "required", relationship.deleteRule.description]
                if let inverse = relationship.inverseName { flags.append("inverse \(inverse)") }
                if relationship.isToMany, relationship.minCount > 0 || relationship.maxCount > 0 {
                    flags.append("count \(relationship.minCount)...\(relationship.maxCount == 0 ? "∞" : String(relationship.maxCount))")
                }
                table.rows.append(["  " + relationship.name, destination, flags.joined(separator: ", ")])
            }
            if !table.rows.isEmpty {
                // Drop the (empty) header and its rule.
                lines += table.rendered().split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
            }
            lines.append("")
        }
        if !model.fetchRequestTemplates.isEmpty {
            lines.append("fetch requests")
            for template in model.fetchRequestTemplates {
                let condition = template.unreadablePredicate.map { " (predicate not readable: \($0))" }
                    ?? template.predicateFormat.map { " where \($0)" } ?? " (all objects)"
                lines.append("  \(template.name): \(template.entityName)" + condition)
            }
            lines.append("")
        }
        if !model.configurations.isEmpty {
            lines.append("configurations")
            for configuration in model.configurations {
                lines.append("  \(configuration.name): " + configuration.entityNames.joined(separator: ", "))
            }
            lines.append("")
        }
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}

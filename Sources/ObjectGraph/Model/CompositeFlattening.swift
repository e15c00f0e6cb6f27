/// How an entity lays out Composite attributes (``AttributeType/composite``): each element becomes an attribute of
/// the entity named `composite.element`, in the composite's place — as Core Data flattens composites into columns.
enum CompositeFlattening {
    /// `attributes` with every composite replaced by its (recursively) flattened elements, and the composites.
    static func flatten(_ attributes: [AttributeDescription]) -> (attributes: [AttributeDescription],
        composites: [AttributeDescription])
    {
        guard attributes.contains(where: { $0.attributeType == .composite }) else { return (attributes, []) }
        var flattened: [AttributeDescription] = []
        var composites: [AttributeDescription] = []
        for attribute in attributes {
            guard attribute.attributeType == .composite else {
                flattened.append(attribute)
                continue
            }
            composites.append(attribute)
            flattened += elements(of: attribute)
        }
        return (flattened, composites)
    }

    /// The leaf elements of `composite` as entity attributes: named by their path from the composite
    /// (`location.latitude`, `a.b.c` for a nested composite), transient when the composite is, optional when either
    /// the composite or the element is, renamed when either
    /// the composite or the element has a renaming identifier, kept in history on deletion when either asks it.
    static func elements(of composite: AttributeDescription, depth: Int = 0) -> [AttributeDescription] {
        guard depth < 32 else { return [] }  // a hand-built cycle cannot exist (values), but depth stays bounded
        var result: [AttributeDescription] = []
        for element in composite.elements {
            var flat = element
            flat.name = composite.name + "." + element.name
            flat.isTransient = composite.isTransient || element.isTransient
            // A required element of an optional composite may be nil (the composite is then nil).
            flat.isOptional = composite.isOptional || element.isOptional
            if composite.renamingIdentifier != nil || element.renamingIdentifier != nil {
                flat.renamingIdentifier = (composite.renamingIdentifier ?? composite.name) + "."
                    + (element.renamingIdentifier ?? element.name)
            }
            flat.preservesValueInHistoryOnDeletion =
                composite.preservesValueInHistoryOnDeletion || element.preservesValueInHistoryOnDeletion
            if element.attributeType == .composite {
                flat.elements = element.elements
                result += elements(of: flat, depth: depth + 1)
            } else {
                flat.elements = []
                result.append(flat)
            }
        }
        return result
    }
}

extension EntityDescription {
    /// The Composite attributes declared on this entity itself (not inherited).
    public var ownCompositeAttributes: ArraySlice<AttributeDescription> {
        compositeAttributes[inheritedCompositeAttributeCount...]
    }

    /// The Composite attribute named `name`, if the entity has (or inherits) one.
    public func compositeAttribute(named name: String) -> AttributeDescription? {
        guard !compositeAttributes.isEmpty else { return nil }
        return compositeAttributes.first { $0.name == name }
    }

    /// The entity's own attributes as its model declares them: each composite once, in the place of its elements
    /// (which ``ownAttributes`` lists instead). What a model writer writes.
    public var ownDeclaredAttributes: [AttributeDescription] {
        guard !compositeAttributes.isEmpty else { return Array(ownAttributes) }
        var result: [AttributeDescription] = []
        var written: Set<String> = []
        for attribute in ownAttributes {
            guard let dot = attribute.name.firstIndex(of: "."),
                let composite = compositeAttribute(named: String(attribute.name[..<dot]))
            else {
                result.append(attribute)
                continue
            }
            if written.insert(composite.name).inserted { result.append(composite) }
        }
        return result
    }

    /// The positions (in ``attributes``) of the stored element attributes of composite `name`, with each element's
    /// path inside the composite (`latitude`, `inner.x`).
    func compositeElementIndexes(of name: String) -> [(path: String, index: Int)] {
        let prefix = name + "."
        return attributes.indices.compactMap { index in
            let attributeName = attributes[index].name
            guard attributeName.hasPrefix(prefix) else { return nil }
            return (String(attributeName.dropFirst(prefix.count)), index)
        }
    }
}

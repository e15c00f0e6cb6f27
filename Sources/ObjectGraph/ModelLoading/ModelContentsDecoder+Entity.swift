extension ModelContentsDecoder {
    /// An `<entity>` element: `name`, `representedClassName`, `parentEntity`, `isAbstract`,
    /// `renamingIdentifier` (Xcode writes it as `elementID`), `versionHashModifier`; children `attribute`,
    /// `relationship`, `userInfo`, `uniquenessConstraints`, `fetchIndex` and the older `compoundIndexes`.
    ///
    /// `syncable` and `codeGenerationType` concern Xcode's code generator and are ignored, as are
    /// `<fetchedProperty>` children (fetched properties are not supported) and unknown children.
    /// Attributes marked `indexed="YES"` (the pre-2017 way to index) become single-attribute fetch
    /// indexes named `by<Name>Index`, as Xcode names them when it converts such a model.
    mutating func entity(_ element: ModelElementReader, classes: [ManagedObject.Type]) throws(ModelLoadError)
        -> EntityDescription
    {
        var reader = element
        let name = try reader.required("name")
        reader.entity = name
        lines.entity(name, at: reader.line)
        let className = reader.nonEmpty("representedClassName")
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var userInfo: [String: String] = [:]
        var constraints: [[String]] = []
        var indexes: [FetchIndexDescription] = []
        var indexedAttributes: [String] = []
        for child in reader.element.children {
            switch child.name {
            case "attribute":
                let (attribute, indexed) = try self.attribute(reader.child(child))
                attributes.append(attribute)
                if indexed { indexedAttributes.append(attribute.name) }
            case "relationship":
                relationships.append(try relationship(reader.child(child)))
            case "userInfo":
                userInfo.merge(try Self.userInfo(reader.child(child)), uniquingKeysWith: { _, last in last })
            case "uniquenessConstraints":
                constraints += try uniquenessConstraints(reader.child(child))
            case "fetchIndex":
                if let index = try fetchIndex(reader.child(child)) { indexes.append(index) }
            case "compoundIndexes":
                indexes += try compoundIndexes(reader.child(child), startingAt: indexes.count)
            default:
                continue
            }
        }
        let taken = Set(indexes.map(\.name))
        for attribute in indexedAttributes {
            let indexName = "by" + attribute.prefix(1).uppercased() + attribute.dropFirst() + "Index"
            if !taken.contains(indexName) {
                indexes.append(FetchIndexDescription(name: indexName, elements: [.init(property: attribute)]))
            }
        }
        return EntityDescription(
            name: name, attributes: attributes, relationships: relationships,
            parentEntity: reader.nonEmpty("parentEntity"),
            managedObjectClass: managedObjectClass(named: className, in: classes), managedObjectClassName: className,
            isAbstract: try reader.flag("isAbstract"), uniquenessConstraints: constraints, fetchIndexes: indexes,
            renamingIdentifier: reader.nonEmpty("renamingIdentifier") ?? reader.nonEmpty("elementID"),
            versionHashModifier: reader.nonEmpty("versionHashModifier"), userInfo: userInfo)
    }

    /// `<userInfo>` with `<entry key value/>` children; a missing value is the empty string, a repeated key
    /// keeps its last value.
    static func userInfo(_ reader: ModelElementReader) throws(ModelLoadError) -> [String: String] {
        var entries: [String: String] = [:]
        for child in reader.element.children(named: "entry") {
            let entry = reader.child(child)
            guard let key = entry.string("key") else { throw entry.missing("key") }
            entries[key] = entry.string("value") ?? ""
        }
        return entries
    }

    /// `<uniquenessConstraints>` with `<uniquenessConstraint>` children, each listing `<constraint value/>`.
    private mutating func uniquenessConstraints(_ reader: ModelElementReader) throws(ModelLoadError) -> [[String]] {
        var constraints: [[String]] = []
        for constraint in reader.element.children(named: "uniquenessConstraint") {
            var names: [String] = []
            for child in constraint.children(named: "constraint") {
                let element = reader.child(child)
                let property = try element.required("value")
                note(property, of: element)
                names.append(property)
            }
            if !names.isEmpty { constraints.append(names) }
        }
        return constraints
    }

    /// `<fetchIndex name>` with `<fetchIndexElement property type order/>` children.
    ///
    /// Elements indexing an `expression` instead of a property cannot be expressed here, so an index with
    /// one is left out (an index only speeds fetches up; leaving one out changes no result). `type="RTree"`
    /// indexes are kept as ordinary ones.
    private mutating func fetchIndex(_ reader: ModelElementReader) throws(ModelLoadError) -> FetchIndexDescription? {
        let name = try reader.required("name")
        var elements: [FetchIndexDescription.Element] = []
        for child in reader.element.children(named: "fetchIndexElement") {
            let element = reader.child(child)
            guard let property = element.nonEmpty("property") else {
                if element.nonEmpty("expression") != nil { return nil }
                throw element.missing("property")
            }
            let ascending: Bool
            switch element.string("order") {
            case nil, "ascending": ascending = true
            case "descending": ascending = false
            case let order?: throw element.invalid("order", order, expected: "ascending or descending")
            }
            note(property, of: element)
            elements.append(.init(property: property, ascending: ascending))
        }
        return elements.isEmpty ? nil : FetchIndexDescription(name: name, elements: elements)
    }

    /// The older `<compoundIndexes>` with `<compoundIndex>` children listing `<index value/>`: each becomes
    /// an ascending fetch index named `compoundIndex1`, `compoundIndex2`, … (numbered after the indexes
    /// read so far).
    private mutating func compoundIndexes(_ reader: ModelElementReader, startingAt count: Int) throws(ModelLoadError)
        -> [FetchIndexDescription]
    {
        var indexes: [FetchIndexDescription] = []
        for compound in reader.element.children(named: "compoundIndex") {
            var elements: [FetchIndexDescription.Element] = []
            for child in compound.children(named: "index") {
                let element = reader.child(child)
                let property = try element.required("value")
                note(property, of: element)
                elements.append(.init(property: property))
            }
            if !elements.isEmpty {
                let name = "compoundIndex\(count + indexes.count + 1)"
                indexes.append(FetchIndexDescription(name: name, elements: elements))
            }
        }
        return indexes
    }

    /// Remembers where a constraint or index names `property`, for errors about it.
    private mutating func note(_ property: String, of element: ModelElementReader) {
        guard let entity = element.entity, let line = element.line else { return }
        let key = "\(entity).\(property)"
        if lines.indexedProperties[key] == nil { lines.indexedProperties[key] = line }
    }
}

extension ModelContentsDecoder {
    /// An `<attribute>` element, and whether it is marked `indexed="YES"`.
    ///
    /// Reads `name`, `attributeType` (Xcode's spellings, plus the old `Binary Data`), `optional`,
    /// `transient`, `indexed`, `defaultValueString` (and `defaultDateTimeInterval` for dates),
    /// `usesScalarValueType`, `minValueString`/`maxValueString` (value bounds for numbers, length bounds for
    /// strings and data), `minDateTimeInterval`/`maxDateTimeInterval`, `regularExpressionString`,
    /// `allowsExternalBinaryDataStorage`, `spotlightIndexingEnabled` (the text search index,
    /// ``AttributeDescription/isIndexedBySpotlight``), `renamingIdentifier`/`elementID`, `versionHashModifier`,
    /// `valueTransformerName`, `customClassName` and a `<userInfo>` child. Absent Booleans are NO, as in
    /// Xcode's files.
    ///
    /// Derived attributes (`derived="YES"` with a `derivationExpression`) are stored attributes with their
    /// derivation (Core Data keeps them in a column of their own; SQLite stores compute them at save time). Other
    /// Xcode-only flags (`storedInTruthFile`, `allowsCloudEncryption`, `syncable`) are ignored.
    mutating func attribute(_ element: ModelElementReader) throws(ModelLoadError)
        -> (attribute: AttributeDescription, indexed: Bool)
    {
        var reader = element
        let name = try reader.required("name")
        reader.property = name
        if let entity = reader.entity { lines.property(name, of: entity, at: reader.line) }
        let typeName = try reader.required("attributeType")
        guard let type = AttributeType(xcodeName: typeName) else {
            throw reader.invalid("attributeType", typeName, expected: "one of Integer 16, Integer 32, Integer 64, "
                + "Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, Transformable, Composite or "
                + "Undefined")
        }
        if type == .composite { return (try compositeAttribute(name, reader), false) }
        let isDerived = try reader.flag("derived")
        let defaultName = type == .date && reader.string("defaultDateTimeInterval") != nil
            ? "defaultDateTimeInterval" : "defaultValueString"
        var defaultValue = AttributeValue.null
        if let text = reader.string(defaultName) {
            do throws(ExpectedValue) {
                defaultValue = try AttributeValueText.defaultValue(text, for: type)
            } catch {
                throw reader.invalid(defaultName, text, expected: error.description)
            }
        }
        let minimum = try bound(type == .date ? "minDateTimeInterval" : "minValueString", of: type, reader)
        let maximum = try bound(type == .date ? "maxDateTimeInterval" : "maxValueString", of: type, reader)
        if AttributeValueText.isInverted(minimum: minimum?.value, maximum: maximum?.value), let maximum {
            throw reader.invalid(maximum.name, maximum.text, expected: "a maximum not below the minimum")
        }
        var attribute = AttributeDescription(
            name: name, type: type, isOptional: try reader.flag("optional"), isTransient: try reader.flag("transient"),
            defaultValue: defaultValue, usesScalarValueType: try reader.flag("usesScalarValueType"),
            minimum: minimum?.value, maximum: maximum?.value,
            regularExpression: reader.nonEmpty("regularExpressionString"),
            allowsExternalBinaryDataStorage: try reader.flag("allowsExternalBinaryDataStorage"),
            renamingIdentifier: reader.nonEmpty("renamingIdentifier") ?? reader.nonEmpty("elementID"),
            versionHashModifier: reader.nonEmpty("versionHashModifier"),
            valueTransformerName: reader.nonEmpty("valueTransformerName"),
            customClassName: reader.nonEmpty("customClassName"),
            userInfo: try propertyUserInfo(reader))
        attribute.preservesValueInHistoryOnDeletion = try reader.flag("preserveAfterDeletion")
        attribute.isIndexedBySpotlight = try reader.flag("spotlightIndexingEnabled")
        if isDerived { attribute.derivationExpression = reader.string("derivationExpression") ?? "" }
        return (attribute, try reader.flag("indexed"))
    }

    /// A `<relationship>` element: `name`, `destinationEntity`, `inverseName`, `inverseEntity`, `toMany`,
    /// `ordered`, `deletionRule` (Nullify when absent), `optional`, `transient`, `minCount`, `maxCount`
    /// (absent: 1 for to-one, unbounded for to-many), `renamingIdentifier`/`elementID`, `versionHashModifier`
    /// and a `<userInfo>` child. `indexed` is ignored: a to-one relationship's column is always indexed.
    mutating func relationship(_ element: ModelElementReader) throws(ModelLoadError) -> RelationshipDescription {
        var reader = element
        let name = try reader.required("name")
        reader.property = name
        if let entity = reader.entity { lines.property(name, of: entity, at: reader.line) }
        let destination = try reader.required("destinationEntity")
        let inverse = reader.nonEmpty("inverseName")
        if inverse != nil, let inverseEntity = reader.nonEmpty("inverseEntity") {
            inverseEntityChecks.append((reader, destination, inverseEntity))
        }
        var rule = DeleteRule.nullify
        if let text = reader.string("deletionRule") {
            guard let named = DeleteRule(xcodeName: text) else {
                throw reader.invalid("deletionRule", text, expected: "Nullify, Cascade, Deny or No Action")
            }
            rule = named
        }
        let minCount = try reader.count("minCount") ?? 0
        let maxCount = try reader.count("maxCount")
        if let maxCount, maxCount > 0, minCount > maxCount {
            throw reader.invalid("maxCount", String(maxCount), expected: "a count not below minCount (\(minCount))")
        }
        return RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: try reader.flag("toMany"),
            isOrdered: try reader.flag("ordered"), deleteRule: rule, isOptional: try reader.flag("optional"),
            isTransient: try reader.flag("transient"), minCount: minCount, maxCount: maxCount,
            renamingIdentifier: reader.nonEmpty("renamingIdentifier") ?? reader.nonEmpty("elementID"),
            versionHashModifier: reader.nonEmpty("versionHashModifier"), userInfo: try propertyUserInfo(reader))
    }

    /// An `<attribute attributeType="Composite" composite="Name">`: `name`, `optional`, `transient`,
    /// `renamingIdentifier`/`elementID`, `versionHashModifier`, `preserveAfterDeletion` and a `<userInfo>` child,
    /// with the elements of the model's `<composite name="Name">` (read as attributes; an element may itself be a
    /// composite, but no composite may contain itself).
    private mutating func compositeAttribute(_ name: String, _ reader: ModelElementReader) throws(ModelLoadError)
        -> AttributeDescription
    {
        let compositeName = try reader.required("composite")
        guard let definition = compositeDefinitions[compositeName] else {
            throw reader.invalid("composite", compositeName, expected: "the name of a <composite> of the model")
        }
        guard !compositesBeingRead.contains(compositeName) else {
            throw reader.invalid("composite", compositeName, expected: "a composite that does not contain itself")
        }
        compositesBeingRead.append(compositeName)
        defer { compositesBeingRead.removeLast() }
        var elements: [AttributeDescription] = []
        var names: Set<String> = []
        for child in definition.element.children(named: "attribute") {
            var elementReader = definition.child(child)
            elementReader.property = compositeName
            let element = try attribute(elementReader).attribute
            guard names.insert(element.name).inserted else {
                throw elementReader.invalid("name", element.name, expected: "a name no other element of the composite has")
            }
            guard element.attributeType != .undefined, !element.isDerived else {
                throw elementReader.invalid("attributeType", element.attributeType.description,
                    expected: "a stored attribute type (a composite's elements cannot be Undefined or derived)")
            }
            elements.append(element)
        }
        var attribute = AttributeDescription(
            name: name, type: .composite, isOptional: try reader.flag("optional"),
            isTransient: try reader.flag("transient"),
            renamingIdentifier: reader.nonEmpty("renamingIdentifier") ?? reader.nonEmpty("elementID"),
            versionHashModifier: reader.nonEmpty("versionHashModifier"), userInfo: try propertyUserInfo(reader))
        attribute.preservesValueInHistoryOnDeletion = try reader.flag("preserveAfterDeletion")
        attribute.elements = elements
        return attribute
    }

    /// The bound in attribute `name`, if present, with the text it came from.
    private func bound(_ name: String, of type: AttributeType, _ reader: ModelElementReader) throws(ModelLoadError)
        -> (name: String, text: String, value: AttributeValue)?
    {
        let fallback = type == .date ? (name.hasPrefix("min") ? "minValueString" : "maxValueString") : name
        guard let attribute = reader.string(name) != nil ? name : reader.string(fallback) != nil ? fallback : nil,
            let text = reader.string(attribute)
        else { return nil }
        do throws(ExpectedValue) {
            return try AttributeValueText.bound(text, for: type).map { (attribute, text, $0) }
        } catch {
            throw reader.invalid(attribute, text, expected: error.description)
        }
    }

    /// The entries of a property's `<userInfo>` children.
    private func propertyUserInfo(_ reader: ModelElementReader) throws(ModelLoadError) -> [String: String] {
        var entries: [String: String] = [:]
        for child in reader.element.children(named: "userInfo") {
            entries.merge(try Self.userInfo(reader.child(child)), uniquingKeysWith: { _, last in last })
        }
        return entries
    }
}

import Foundation

/// Turns a compiled Core Data model — the keyed archive Xcode's model compiler writes as a `.mom` file, and Core
/// Data keeps in a store's `Z_MODELCACHE` — into a ``ManagedObjectModel``, the same one its `.xcdatamodel` source
/// loads into.
///
/// What is read (class and key names as Core Data archives them): `NSManagedObjectModel` (`NSEntities`,
/// `NSVersionIdentifiers`, `NSConfigurations`, `NSFetchRequestTemplates`: archived `NSFetchRequest`s with their
/// entity and `NSPredicate`, read by ``ArchivedPredicateDecoder``),
/// `NSEntityDescription` (name, class name, superentity, abstract, properties, uniqueness constraints, fetch
/// indexes, renaming identifier, version hash modifier, user info), `NSAttributeDescription` and
/// `NSDerivedAttributeDescription` (name, type code, optional/transient, default value, value transformer,
/// custom class, renaming identifier, version hash modifier, external storage and preserve-on-deletion flags, the
/// Spotlight flag `NSIndexedBySpotlight`),
/// `NSCompositeAttributeDescription` (type 2100: an attribute's keys plus its elements, `NSCompositeElements`),
/// `NSRelationshipDescription` (destination, inverse, minimum and maximum count, delete rule, ordered,
/// optional/transient). Fetched properties are left out (as the source loader leaves them out).
struct CompiledModelDecoder {
    let archive: KeyedArchive
    /// The file named in errors.
    let source: String

    /// Decodes the archive's root model, naming it `versionName`.
    ///
    /// - Throws: ``ModelLoadError`` naming `source` and what is missing or wrong.
    func decode(versionName: String?, classes: [ManagedObject.Type]) throws(ModelLoadError) -> ManagedObjectModel {
        guard let root = archive.root else { throw failure("its root is not an archived object") }
        guard root.classes.contains("NSManagedObjectModel") || root.className == "NSManagedObjectModel" else {
            throw failure("its root object is a \(root.className), not an NSManagedObjectModel")
        }
        guard let entityEntries = archive.dictionary(root["NSEntities"]) else {
            throw failure("the model has no NSEntities dictionary")
        }
        var entities: [EntityDescription] = []
        var seen: Set<String> = []
        for (_, value) in entityEntries {
            guard let object = archive.object(value) else { throw failure("an entry of NSEntities is not an entity") }
            let entity = try decodeEntity(object)
            guard seen.insert(entity.name).inserted else { continue }
            entities.append(entity)
        }
        entities.sort { $0.name < $1.name }
        var identifiers: Set<String> = []
        for member in archive.array(root["NSVersionIdentifiers"]) ?? [] {
            if let text = archive.string(member) { identifiers.insert(text) }
        }
        var configurations: [ModelConfiguration] = []
        for (key, value) in archive.dictionary(root["NSConfigurations"]) ?? [] {
            guard let name = archive.string(key) else { continue }
            let members = (archive.array(value) ?? []).compactMap { member in
                archive.object(member).flatMap { archive.string($0["NSEntityName"]) } ?? archive.string(member)
            }
            configurations.append(ModelConfiguration(name: name, entityNames: members.sorted()))
        }
        configurations.sort { $0.name < $1.name }
        var templates: [FetchRequestTemplate] = []
        for (key, value) in archive.dictionary(root["NSFetchRequestTemplates"]) ?? [] {
            guard let name = archive.string(key), let request = archive.object(value),
                let entity = archive.object(request["NSEntity"]).flatMap({ archive.string($0["NSEntityName"]) })
                    ?? archive.string(request["NSEntityName"])
            else { continue }
            templates.append(template(named: name, entity: entity, predicate: request["NSPredicate"]))
        }
        templates.sort { $0.name < $1.name }
        do {
            return try ManagedObjectModel(entities: entities, configurations: configurations,
                fetchRequestTemplates: templates, versionIdentifiers: identifiers, versionName: versionName,
                classes: classes)
        } catch {
            throw ModelLoadError(file: source, reason: .inconsistent(error))
        }
    }

    /// A template whose `NSPredicate` (nil: every object) is read as a predicate tree; one that cannot be read
    /// leaves the template saying why (``FetchRequestTemplate/unreadablePredicate``), so the model still loads and
    /// using that template is the error.
    private func template(named name: String, entity: String, predicate value: KeyedArchive.Value?)
        -> FetchRequestTemplate
    {
        guard let value, archive.resolved(value) != nil, archive.resolved(value) != .null else {
            return FetchRequestTemplate(name: name, entityName: entity, predicateFormat: nil)
        }
        do {
            return FetchRequestTemplate(name: name, entityName: entity,
                predicate: try ArchivedPredicateDecoder(archive: archive).predicate(value))
        } catch {
            var template = FetchRequestTemplate(name: name, entityName: entity, predicateFormat: nil)
            template.unreadablePredicate = "its archived predicate holds \(error.reason)"
            return template
        }
    }

    private func decodeEntity(_ object: KeyedArchive.Object) throws(ModelLoadError) -> EntityDescription {
        guard let name = archive.string(object["NSEntityName"]), !name.isEmpty else {
            throw failure("an entity has no NSEntityName")
        }
        let parent = archive.object(object["NSSuperentity"]).flatMap { archive.string($0["NSEntityName"]) }
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        for (_, value) in archive.dictionary(object["NSProperties"]) ?? [] {
            guard let property = archive.object(value) else { continue }
            // Only the entity's own properties: a superentity's are inherited when the model resolves.
            if let owner = archive.object(property["NSEntity"]).flatMap({ archive.string($0["NSEntityName"]) }),
                owner != name
            { continue }
            let chain = Set(property.classes + [property.className])
            if chain.contains("NSRelationshipDescription") {
                relationships.append(try decodeRelationship(property, entity: name))
            } else if chain.contains("NSFetchedPropertyDescription") {
                continue
            } else if chain.contains("NSAttributeDescription") {
                attributes.append(try decodeAttribute(property, entity: name))
            }
        }
        attributes.sort { $0.name < $1.name }
        relationships.sort { $0.name < $1.name }
        let uniqueness: [[String]] = (archive.array(object["NSUniqueTuples"]) ?? []).map { tuple in
            (archive.array(tuple) ?? []).compactMap { member in
                archive.string(member) ?? archive.object(member).flatMap { archive.string($0["NSPropertyName"]) }
            }
        }.filter { !$0.isEmpty }
        var indexes: [FetchIndexDescription] = []
        for value in archive.array(object["NSFetchIndexDescriptions"]) ?? [] {
            guard let index = archive.object(value), let indexName = archive.string(index["NSIndexName"]) else { continue }
            let elements = (archive.array(index["NSIndexElements"]) ?? []).compactMap { element -> FetchIndexDescription.Element? in
                guard let described = archive.object(element) else { return nil }
                let property = archive.string(described["NSPropertyName"])
                    ?? archive.object(described["NSProperty"]).flatMap { archive.string($0["NSPropertyName"]) }
                return property.map {
                    FetchIndexDescription.Element(property: $0, ascending: archive.boolean(described["NSAscending"]) ?? true)
                }
            }
            if !elements.isEmpty { indexes.append(FetchIndexDescription(name: indexName, elements: elements)) }
        }
        return EntityDescription(name: name, attributes: attributes, relationships: relationships, parentEntity: parent,
            managedObjectClassName: archive.string(object["NSClassNameForEntity"]),
            isAbstract: archive.boolean(object["NSIsAbstract"]) ?? false, uniquenessConstraints: uniqueness,
            fetchIndexes: indexes, renamingIdentifier: archive.string(object["NSRenamingIdentifier"]),
            versionHashModifier: archive.string(object["NSVersionHashModifier"]), userInfo: userInfo(object))
    }

    /// The `_P` flags Core Data archives with each property: +0x02 optional, +0x04 read-only, +0x08 transient,
    /// +0x100 indexed by Spotlight (the bits `NSPropertyDescription`'s `encodeWithCoder:` sets beside its Boolean keys).
    private func flags(_ property: KeyedArchive.Object) -> (optional: Bool?, transient: Bool?, spotlight: Bool?) {
        guard let bits = archive.integer(property["_P"]) else { return (nil, nil, nil) }
        return (bits & 0x02 != 0, bits & 0x08 != 0, bits & 0x100 != 0)
    }

    /// The deepest nesting of composites accepted (an archive can make a composite contain itself).
    static let maximumCompositeDepth = 16

    private func decodeAttribute(_ property: KeyedArchive.Object, entity: String, depth: Int = 0)
        throws(ModelLoadError) -> AttributeDescription
    {
        guard let name = archive.string(property["NSPropertyName"]), !name.isEmpty else {
            throw failure("an attribute of entity '\(entity)' has no NSPropertyName")
        }
        let code = archive.integer(property["NSAttributeType"]) ?? 0
        guard let type = AttributeType(rawValue: Int(clamping: code)) else {
            throw failure("attribute '\(entity).\(name)' is of type code \(code)")
        }
        let bits = flags(property)
        let isOptional = archive.boolean(property["NSIsOptional"]) ?? bits.optional ?? false
        let isTransient = archive.boolean(property["NSIsTransient"]) ?? bits.transient ?? false
        var attribute = AttributeDescription(name: name, type: type, isOptional: isOptional, isTransient: isTransient,
            defaultValue: defaultValue(property["NSDefaultValue"], type: type),
            allowsExternalBinaryDataStorage: archive.boolean(property["NSAllowsExternalBinaryDataStorage"]) ?? false,
            renamingIdentifier: archive.string(property["NSRenamingIdentifier"]),
            versionHashModifier: archive.string(property["NSVersionHashModifier"]),
            valueTransformerName: archive.string(property["NSValueTransformerName"]),
            customClassName: archive.string(property["NSAttributeValueClassName"]), userInfo: userInfo(property))
        // NSFlagsKey 0x10: preserve the value in the history after deletion (seen on such attributes only).
        if let flagBits = archive.integer(property["NSFlagsKey"]), flagBits & 0x10 != 0 {
            attribute.preservesValueInHistoryOnDeletion = true
        }
        attribute.isIndexedBySpotlight = archive.boolean(property["NSIndexedBySpotlight"]) ?? bits.spotlight ?? false
        if Set(property.classes + [property.className]).contains("NSDerivedAttributeDescription") {
            attribute.derivationExpression = derivation(property["NSDerivationExpression"])
        }
        if type == .composite { attribute.elements = try compositeElements(property, of: "\(entity).\(name)", depth: depth) }
        return attribute
    }

    /// A derived attribute's `NSDerivationExpression` as the model file's `derivationExpression` text (see
    /// ``ArchivedPredicateDecoder/derivation(_:)``); an expression this framework cannot read keeps the attribute
    /// derived (read-only, never written by saves) under a text that says what it is, which no store computes.
    private func derivation(_ value: KeyedArchive.Value?) -> String {
        do {
            return try ArchivedPredicateDecoder(archive: archive).derivation(value)
        } catch {
            return "unreadable derivation: \(error.reason)"
        }
    }

    /// An `NSCompositeAttributeDescription`'s elements: the attribute descriptions archived, in order, under
    /// `NSCompositeElements` (the key Core Data's `encodeWithCoder:` uses).
    private func compositeElements(_ property: KeyedArchive.Object, of path: String, depth: Int) throws(ModelLoadError)
        -> [AttributeDescription]
    {
        guard depth < Self.maximumCompositeDepth else {
            throw failure("composite attribute '\(path)' nests more than \(Self.maximumCompositeDepth) levels deep")
        }
        guard let list = archive.array(property["NSCompositeElements"]) else {
            throw failure("composite attribute '\(path)' has no NSCompositeElements array")
        }
        var elements: [AttributeDescription] = []
        var names: Set<String> = []
        for value in list {
            guard let object = archive.object(value),
                Set(object.classes + [object.className]).contains("NSAttributeDescription")
            else { throw failure("an element of composite attribute '\(path)' is not an attribute description") }
            let element = try decodeAttribute(object, entity: path, depth: depth + 1)
            guard names.insert(element.name).inserted else {
                throw failure("composite attribute '\(path)' has two elements named '\(element.name)'")
            }
            elements.append(element)
        }
        return elements
    }

    private func decodeRelationship(_ property: KeyedArchive.Object, entity: String) throws(ModelLoadError)
        -> RelationshipDescription
    {
        guard let name = archive.string(property["NSPropertyName"]), !name.isEmpty else {
            throw failure("a relationship of entity '\(entity)' has no NSPropertyName")
        }
        guard let destination = archive.object(property["NSDestinationEntity"]).flatMap({ archive.string($0["NSEntityName"]) })
            ?? archive.string(property["_NSDestinationEntityName"])
        else { throw failure("relationship '\(entity).\(name)' has no destination entity") }
        let inverse = archive.object(property["NSInverseRelationship"]).flatMap { archive.string($0["NSPropertyName"]) }
            ?? archive.string(property["_NSInverseRelationshipName"])
        let maxCount = archive.integer(property["NSMaxCount"]) ?? 0
        let minCount = max(0, archive.integer(property["NSMinCount"]) ?? 0)
        let isToMany = maxCount != 1
        let rule: DeleteRule
        switch archive.integer(property["NSDeleteRule"]) ?? 1 {
        case 0: rule = .noAction
        case 2: rule = .cascade
        case 3: rule = .deny
        default: rule = .nullify
        }
        let bits = flags(property)
        return RelationshipDescription(name: name, destination: destination, inverse: inverse, isToMany: isToMany,
            isOrdered: archive.boolean(property["NSIsOrdered"]) ?? false, deleteRule: rule,
            isOptional: archive.boolean(property["NSIsOptional"]) ?? bits.optional ?? true,
            isTransient: archive.boolean(property["NSIsTransient"]) ?? bits.transient ?? false,
            minCount: Int(clamping: minCount), maxCount: isToMany && maxCount > 1 ? Int(clamping: maxCount) : nil,
            renamingIdentifier: archive.string(property["NSRenamingIdentifier"]),
            versionHashModifier: archive.string(property["NSVersionHashModifier"]), userInfo: userInfo(property))
    }

    /// An archived default value as an attribute value of `type`; nil (no default) for what does not fit.
    private func defaultValue(_ value: KeyedArchive.Value?, type: AttributeType) -> AttributeValue {
        guard let resolved = archive.resolved(value) else { return .null }
        switch (type, resolved) {
        case (.integer16, .integer(let number)), (.integer32, .integer(let number)), (.integer64, .integer(let number)):
            return .integer(number)
        case (.double, .integer(let number)), (.float, .integer(let number)): return .double(Double(number))
        case (.double, .real(let number)), (.float, .real(let number)): return .double(number)
        case (.decimal, .integer(let number)): return .decimal(Decimal(number))
        case (.decimal, .real(let number)): return .decimal(Decimal(number))
        case (.decimal, .dictionary):
            guard let object = archive.object(value), let number = ArchivedDecimal.decimal(object, in: archive) else {
                return .null
            }
            return .decimal(number)
        case (.boolean, .boolean(let flag)): return .boolean(flag)
        case (.boolean, .integer(let number)): return .boolean(number != 0)
        case (.date, .date(let date)): return .date(date)
        case (.date, .dictionary):
            // NSDate archives its seconds since 2001 as NS.time.
            guard let object = archive.object(value), case .real(let seconds)? = archive.resolved(object["NS.time"]) else {
                return .null
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.string, _), (.uri, _):
            guard let text = archive.string(value) else { return .null }
            if type == .uri { return URL(string: text).map(AttributeValue.uri) ?? .null }
            return .string(text)
        case (.binary, .data(let bytes)): return .binary(bytes)
        default: return .null
        }
    }

    private func userInfo(_ object: KeyedArchive.Object) -> [String: String] {
        var info: [String: String] = [:]
        for (key, value) in archive.dictionary(object["NSUserInfo"]) ?? [] {
            if let name = archive.string(key), let text = archive.string(value) { info[name] = text }
        }
        return info
    }

    private func failure(_ reason: String) -> ModelLoadError {
        ModelLoadError(file: source, reason: .notAModel(reason))
    }
}

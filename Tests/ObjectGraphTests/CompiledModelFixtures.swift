import Foundation
import TestSupport
@testable import ObjectGraph

/// Writes compiled models (`.mom` keyed archives, `.momd` folders) from a ``ManagedObjectModel`` the way Xcode's
/// model compiler lays them out (classes and keys from `apple-file-formats.md` §2): test fixtures made by our own
/// code.
enum CompiledModelFixtures {
    /// The `.mom` archive of `model`. With `knownKeysEntities`, `NSEntities` is written as Core Data's
    /// `NSKnownKeysDictionary1` (as in a store's model cache) instead of an `NSDictionary`.
    static func mom(_ model: ManagedObjectModel, knownKeysEntities: Bool = false) -> Data {
        let archive = KeyedArchiveBuilder()
        let modelSlot = archive.reserve()
        var entitySlots: [String: PropertyListValue] = [:]
        for entity in model.entities { entitySlots[entity.name] = archive.reserve() }
        // Properties are written once each; inverses refer to each other.
        var propertySlots: [String: PropertyListValue] = [:]
        for entity in model.entities {
            for relationship in entity.ownRelationships { propertySlots[entity.name + "." + relationship.name] = archive.reserve() }
        }
        for entity in model.entities {
            var properties: [(String, PropertyListValue)] = []
            for attribute in entity.ownDeclaredAttributes {
                properties.append((attribute.name, attributeObject(attribute, entity: entitySlots[entity.name], archive)))
            }
            for relationship in entity.ownRelationships {
                let slot = propertySlots[entity.name + "." + relationship.name] ?? .uid(0)
                var fields: [(String, PropertyListValue)] = [
                    ("NSPropertyName", archive.add(.string(relationship.name))),
                    ("NSEntity", entitySlots[entity.name] ?? .uid(0)),
                    ("NSDestinationEntity", entitySlots[relationship.destinationEntityName] ?? .uid(0)),
                    ("_NSDestinationEntityName", archive.add(.string(relationship.destinationEntityName))),
                    ("NSMinCount", .integer(Int64(relationship.minCount))),
                    ("NSMaxCount", .integer(relationship.isToMany ? Int64(relationship.maxCount) : 1)),
                    ("NSDeleteRule", .integer(Int64(relationship.deleteRule.rawValue))),
                    ("_P", .integer(0xF1 + (relationship.isOptional ? 0x02 : 0))),
                ]
                if relationship.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
                if relationship.isOrdered { fields.append(("NSIsOrdered", .boolean(true))) }
                if let inverse = relationship.inverseName {
                    fields.append(("NSInverseRelationship",
                        propertySlots[relationship.destinationEntityName + "." + inverse] ?? .uid(0)))
                    fields.append(("_NSInverseRelationshipName", archive.add(.string(inverse))))
                }
                properties.append((relationship.name, archive.object("NSRelationshipDescription",
                    chain: ["NSPropertyDescription"], fields: fields, into: slot)))
            }
            var fields: [(String, PropertyListValue)] = [
                ("NSEntityName", archive.add(.string(entity.name))),
                ("NSManagedObjectModel", modelSlot),
                ("NSProperties", archive.dictionary(properties)),
            ]
            if let className = entity.managedObjectClassName {
                fields.append(("NSClassNameForEntity", archive.add(.string(className))))
            }
            if let parent = entity.parentEntityName, let slot = entitySlots[parent] { fields.append(("NSSuperentity", slot)) }
            if entity.isAbstract { fields.append(("NSIsAbstract", .boolean(true))) }
            if !entity.uniquenessConstraints.isEmpty {
                fields.append(("NSUniqueTuples", archive.array(entity.uniquenessConstraints.map { tuple in
                    archive.array(tuple.map { archive.add(.string($0)) })
                })))
            }
            if !entity.fetchIndexes.isEmpty {
                fields.append(("NSFetchIndexDescriptions", archive.array(entity.fetchIndexes.map { index in
                    archive.object("NSFetchIndexDescription", fields: [
                        ("NSIndexName", archive.add(.string(index.name))),
                        ("NSIndexElements", archive.array(index.elements.map { element in
                            archive.object("NSFetchIndexElementDescription", fields: [
                                ("NSPropertyName", archive.add(.string(element.property))),
                                ("NSAscending", .boolean(element.ascending)),
                            ])
                        })),
                    ])
                })))
            }
            archive.object("NSEntityDescription", fields: fields, into: entitySlots[entity.name])
        }
        let entityEntries = model.entities.map { ($0.name, entitySlots[$0.name] ?? .uid(0)) }
        let entities: PropertyListValue
        if knownKeysEntities {
            let keys = archive.array(entityEntries.map { archive.add(.string($0.0)) })
            let mapping = archive.object("NSKnownKeysMappingStrategy1", fields: [("keys", keys),
                ("length", .integer(Int64(entityEntries.count))), ("version", .integer(1))])
            entities = archive.object("NSKnownKeysDictionary1", chain: ["NSMutableDictionary", "NSDictionary"], fields: [
                ("searchMapping", mapping), ("values", archive.array(entityEntries.map(\.1))),
                ("emptyToken", archive.add(.string("$empty"))), ("version", .integer(1)),
            ])
        } else {
            entities = archive.dictionary(entityEntries)
        }
        // Fetch request templates: archived NSFetchRequests with their entity and NSPredicate.
        let templates = model.fetchRequestTemplates.map { template -> (String, PropertyListValue) in
            var fields: [(String, PropertyListValue)] = [
                ("NSEntity", entitySlots[template.entityName] ?? archive.add(.string(template.entityName))),
                ("NSFetchLimit", .integer(0)), ("NSBatchSize", .integer(0)), ("NSResultType", .integer(0)),
                ("NSHasFetchRequestFlags", .boolean(true)), ("NSFetchRequestFlags", .integer(0x1E)),
            ]
            if let predicate = (try? template.predicate()) ?? nil {
                fields.append(("NSPredicate", ArchivedPredicateFixtures.predicate(predicate, archive)))
            }
            return (template.name, archive.object("NSFetchRequest", chain: ["NSPersistentStoreRequest"], fields: fields))
        }
        archive.object("NSManagedObjectModel", fields: [
            ("NSEntities", entities),
            ("NSFetchRequestTemplates", archive.dictionary(templates)),
            ("NSVersionIdentifiers", archive.array(model.versionIdentifiers.sorted().map { archive.add(.string($0)) },
                className: "NSSet")),
            ("CDMCompilerToolVersion", .real(15.0)),
        ], into: modelSlot)
        return archive.archive(root: modelSlot)
    }

    /// Writes `Name.momd` into `directory` with one `.mom` per `(versionName, model)`, the last current, and a
    /// `VersionInfo.plist` carrying `hashes` (per version, per entity).
    static func momd(
        _ versions: [(String, ManagedObjectModel)], hashes: [String: [String: Data]], in directory: TemporaryDirectory,
        name: String = "Compiled"
    ) throws -> URL {
        let folder = directory.file("\(name).momd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (version, model) in versions {
            try mom(model).write(to: folder.appendingPathComponent("\(version).mom"))
        }
        let info: PropertyListValue = .dictionary([
            ("NSManagedObjectModel_CurrentVersionName", .string(versions.last?.0 ?? "")),
            ("NSManagedObjectModel_VersionHashes", .dictionary(hashes.sorted { $0.key < $1.key }.map { version, entities in
                (version, .dictionary(entities.sorted { $0.key < $1.key }.map { ($0.key, .data($0.value)) }))
            })),
        ])
        try BinaryPropertyList.encode(info).write(to: folder.appendingPathComponent("VersionInfo.plist"))
        return folder
    }

    /// An archived `NSAttributeDescription`; a composite is an `NSCompositeAttributeDescription` whose elements
    /// are archived, in order, under `NSCompositeElements`.
    private static func attributeObject(
        _ attribute: AttributeDescription, entity: PropertyListValue?, _ archive: KeyedArchiveBuilder
    ) -> PropertyListValue {
        var flags: Int64 = 0xF1
        if attribute.isOptional { flags += 0x02 }
        if attribute.isTransient { flags += 0x08 }
        if attribute.isIndexedBySpotlight { flags += 0x100 }
        var fields: [(String, PropertyListValue)] = [
            ("NSPropertyName", archive.add(.string(attribute.name))),
            ("NSEntity", entity ?? .uid(0)),
            ("NSAttributeType", .integer(Int64(attribute.attributeType.rawValue))),
            ("_P", .integer(flags)),
        ]
        if attribute.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
        if attribute.isTransient { fields.append(("NSIsTransient", .boolean(true))) }
        if attribute.isIndexedBySpotlight { fields.append(("NSIndexedBySpotlight", .boolean(true))) }
        if attribute.preservesValueInHistoryOnDeletion { fields.append(("NSFlagsKey", .integer(0x10))) }
        if attribute.allowsExternalBinaryDataStorage {
            fields.append(("NSAllowsExternalBinaryDataStorage", .boolean(true)))
        }
        if case .decimal(let number) = attribute.defaultValue {
            fields.append(("NSDefaultValue", archive.object("NSDecimalNumber", chain: ["NSNumber", "NSValue"],
                fields: ArchivedDecimal.fields(number))))
        } else if let value = defaultValue(attribute.defaultValue) {
            fields.append(("NSDefaultValue", archive.add(value)))
        }
        if let name = attribute.renamingIdentifier { fields.append(("NSRenamingIdentifier", archive.add(.string(name)))) }
        if let name = attribute.valueTransformerName {
            fields.append(("NSValueTransformerName", archive.add(.string(name))))
        }
        if let derivation = attribute.derivationExpression {
            fields.append(("NSDerivationExpression", derivationExpression(derivation, archive)))
            return archive.object("NSDerivedAttributeDescription", chain: ["NSAttributeDescription", "NSPropertyDescription"],
                fields: fields)
        }
        guard attribute.attributeType == .composite else {
            return archive.object("NSAttributeDescription", chain: ["NSPropertyDescription"], fields: fields)
        }
        fields.append(("NSCompositeElements", archive.array(attribute.elements.map {
            attributeObject($0, entity: entity, archive)
        })))
        return archive.object("NSCompositeAttributeDescription", chain: ["NSAttributeDescription", "NSPropertyDescription"],
            fields: fields)
    }

    /// A derivation as Core Data archives it once `setDerivationExpression:` has taken it: key paths ending in
    /// `.@count` or `.@sum` become the functions `count:` and `sum:` of the rest, `lowercase:(name)` and its kin and
    /// `now()` are function expressions, and any other text a key path expression.
    static func derivationExpression(_ text: String, _ archive: KeyedArchiveBuilder) -> PropertyListValue {
        func function(_ selector: String, _ arguments: [PropertyListValue]) -> PropertyListValue {
            archive.object("NSFunctionExpression", chain: ["NSExpression"], fields: [
                ("NSExpressionType", .integer(4)),
                ("NSOperand", archive.object("NSConstantValueExpression", chain: ["NSExpression"], fields: [
                    ("NSExpressionType", .integer(0)), ("NSConstantValue", archive.add(.string("NSPredicateUtilities"))),
                ])),
                ("NSSelectorName", archive.add(.string(selector))), ("NSArguments", archive.array(arguments)),
            ])
        }
        if text == "now()" { return function("now", []) }
        for selector in ["lowercase:", "uppercase:", "canonical:"] where text.hasPrefix(selector + "(") && text.hasSuffix(")") {
            let path = String(text.dropFirst(selector.count + 1).dropLast())
            return function(selector, [ArchivedPredicateFixtures.keyPath(path, archive)])
        }
        for (suffix, selector) in [(".@count", "count:"), (".@sum", "sum:")] where text.hasSuffix(suffix) {
            return function(selector, [ArchivedPredicateFixtures.keyPath(String(text.dropLast(suffix.count)), archive)])
        }
        return ArchivedPredicateFixtures.keyPath(text, archive)
    }

    private static func defaultValue(_ value: AttributeValue) -> PropertyListValue? {
        switch value {
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .boolean(let flag): .boolean(flag)
        case .string(let text): .string(text)
        case .date(let date): .date(date)
        default: nil
        }
    }
}

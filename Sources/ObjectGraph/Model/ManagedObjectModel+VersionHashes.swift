import Crypto
import Foundation

/// Version hashes: fingerprints of what a store's layout depends on, so a store can tell whether it was
/// written for this model.
///
/// The algorithm (documented in <doc:ModelsAndObjects>): an entity's hash is the SHA-256 of a canonical byte string
/// built from length-prefixed UTF-8 fields — the entity's name, its parent's name (empty for a root),
/// whether it is abstract, its version-hash modifier, then each **stored** (non-transient) property,
/// inherited ones included, sorted by name: for an attribute its name, type code, optionality and
/// modifier; for a relationship its name, destination, inverse, to-many, ordered and modifier. The model's
/// hash is the SHA-256 of every entity's name and hash, sorted by entity name. An entity with Composite attributes
/// adds, after its properties, each stored composite (name, optionality, modifier) and its elements recursively, by
/// name (path such as `location.latitude`, type code, optionality, transience, modifier): a composite's elements
/// are also stored attributes of the entity, so adding, removing, renaming or retyping an element changes the hash.
///
/// So renaming the class, adding, removing or editing transient properties, validation rules, default
/// values, delete rules or user info leave hashes alone; changing a stored property's name, type or
/// optionality, making it transient (or stored again), changing relationships or inheritance changes them.
extension EntityDescription {
    /// The entity's 32-byte version hash.
    public var versionHash: Data {
        var encoder = HashInput()
        encoder.add("entity", name, parentEntityName ?? "", isAbstract ? "1" : "0", versionHashModifier ?? "")
        let stored = attributes.filter { !$0.isTransient }.map { (name: $0.name, kind: 0, index: 0) }
            + relationships.filter { !$0.isTransient }.map { (name: $0.name, kind: 1, index: 0) }
        for property in stored.sorted(by: { $0.name < $1.name }) {
            if property.kind == 0, let attribute = attribute(named: property.name) {
                encoder.add("attribute", attribute.name, String(attribute.attributeType.rawValue),
                    attribute.isOptional ? "1" : "0", attribute.versionHashModifier ?? "")
            } else if let relationship = relationship(named: property.name) {
                encoder.add("relationship", relationship.name, relationship.destinationEntityName,
                    relationship.inverseName ?? "", relationship.isToMany ? "1" : "0",
                    relationship.isOrdered ? "1" : "0", relationship.versionHashModifier ?? "")
            }
        }
        // Composites (only in models that have them, so other hashes stay as they were): each stored composite's
        // name, optionality and modifier, then its elements as declared (path, type code, optionality, modifier).
        // An element's own optionality counts even inside an optional composite, where its column allows nil.
        for composite in compositeAttributes.filter({ !$0.isTransient }).sorted(by: { $0.name < $1.name }) {
            encoder.add("composite", composite.name, composite.isOptional ? "1" : "0", composite.versionHashModifier ?? "")
            Self.addElements(of: composite, path: composite.name, to: &encoder, depth: 0)
        }
        return Data(SHA256.hash(data: encoder.bytes))
    }

    private static func addElements(of composite: AttributeDescription, path: String, to encoder: inout HashInput, depth: Int) {
        guard depth < 32 else { return }
        for element in composite.elements.sorted(by: { $0.name < $1.name }) {
            encoder.add("element", path + "." + element.name, String(element.attributeType.rawValue),
                element.isOptional ? "1" : "0", element.isTransient ? "1" : "0", element.versionHashModifier ?? "")
            addElements(of: element, path: path + "." + element.name, to: &encoder, depth: depth + 1)
        }
    }
}

extension ManagedObjectModel {
    /// Every entity's version hash, by entity name (what a store's metadata keeps): Core Data's own when the
    /// model came from a compiled bundle that carries them (``compiledEntityVersionHashes``), else ours.
    public var entityVersionHashes: [String: Data] {
        let compiled = compiledEntityVersionHashes ?? [:]
        return Dictionary(uniqueKeysWithValues: entities.map { ($0.name, compiled[$0.name] ?? $0.versionHash) })
    }

    /// The model's 32-byte version hash, from all entity hashes.
    public var versionHash: Data { Self.versionHash(ofEntityHashes: entityVersionHashes) }

    /// The model version hash that a set of entity hashes (a model's, or a store's metadata) gives.
    public static func versionHash(ofEntityHashes hashes: [String: Data]) -> Data {
        var encoder = HashInput()
        for (name, hash) in hashes.sorted(by: { $0.key < $1.key }) {
            encoder.add(name)
            encoder.add(bytes: hash)
        }
        return Data(SHA256.hash(data: encoder.bytes))
    }

    /// Whether a store whose metadata holds `hashes` was written for this model.
    public func isConfiguration(compatibleWithVersionHashes hashes: [String: Data]) -> Bool {
        hashes == entityVersionHashes
    }
}

/// Length-prefixed fields, so that no two different field lists give the same bytes.
private struct HashInput {
    var bytes: [UInt8] = []

    mutating func add(_ fields: String...) {
        for field in fields { add(bytes: Array(field.utf8)) }
    }

    mutating func add(bytes field: some Collection<UInt8>) {
        let count = UInt32(truncatingIfNeeded: field.count)
        bytes += [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        bytes += field
    }
}

import Foundation

/// What an object ID's key is unique within: an entity, a store, and whether the key is a temporary
/// serial number or a row's primary key.
///
/// Namespaces are interned — one instance per combination for the life of the process — so that an ID is
/// a key and one reference (sixteen bytes, one reference count), and two IDs usually compare their
/// namespaces by identity instead of by two strings. There are only as many as entities times stores a
/// process opens; IDs read from text take a transient namespace when none is interned for their names.
final class ObjectIDNamespace: Sendable {
    /// The name of the IDs' entity.
    let entityName: String
    /// The identifier of the IDs' store; empty for temporary IDs.
    let storeIdentifier: String
    /// Whether the IDs' keys are temporary serial numbers.
    let isTemporary: Bool

    private init(entityName: String, storeIdentifier: String, isTemporary: Bool) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.isTemporary = isTemporary
    }

    /// The one namespace of permanent IDs of `entityName` in `storeIdentifier`.
    static func permanent(entityName: String, storeIdentifier: String) -> ObjectIDNamespace {
        interned(Key(entityName: entityName, storeIdentifier: storeIdentifier, isTemporary: false))
    }

    /// The one namespace of temporary IDs of `entityName`.
    static func temporary(entityName: String) -> ObjectIDNamespace {
        interned(Key(entityName: entityName, storeIdentifier: "", isTemporary: true))
    }

    /// The interned namespace of permanent IDs of `entityName` in `storeIdentifier` if one exists, else one
    /// made for this use only — for IDs read from text (a predicate's URI), which must not grow the table
    /// for every name a user types. Such an ID still equals an ID of the same entity, store and key.
    static func existingOrTransient(entityName: String, storeIdentifier: String) -> ObjectIDNamespace {
        let key = Key(entityName: entityName, storeIdentifier: storeIdentifier, isTemporary: false)
        return table.withLock { $0[key] }
            ?? ObjectIDNamespace(entityName: entityName, storeIdentifier: storeIdentifier, isTemporary: false)
    }

    /// Whether `other` stands for the same entity, store and kind (true for the same instance).
    func names(_ other: ObjectIDNamespace) -> Bool {
        self === other || (isTemporary == other.isTemporary && entityName == other.entityName
            && storeIdentifier == other.storeIdentifier)
    }

    private struct Key: Hashable {
        let entityName: String
        let storeIdentifier: String
        let isTemporary: Bool
    }

    // (`Locked`, not `Mutex`: ThreadSanitizer cannot see a `Mutex` on Linux and reports its accesses as races.)
    private static let table = Locked<[Key: ObjectIDNamespace]>([:])

    private static func interned(_ key: Key) -> ObjectIDNamespace {
        table.withLock { table in
            if let namespace = table[key] { return namespace }
            let namespace = ObjectIDNamespace(entityName: key.entityName, storeIdentifier: key.storeIdentifier,
                isTemporary: key.isTemporary)
            table[key] = namespace
            return namespace
        }
    }
}

/// The namespaces of the permanent IDs one store hands out, looked up by entity number or name without
/// touching the process-wide table: a fetch makes an ID per row and per to-one foreign key.
struct StoreIDNamespaces: Sendable {
    private let byNumber: [Int: ObjectIDNamespace]
    private let byName: [String: ObjectIDNamespace]
    /// The store these namespaces belong to.
    let storeIdentifier: String

    /// No namespaces yet (a store before it knows its identifier).
    init() {
        byNumber = [:]
        byName = [:]
        storeIdentifier = ""
    }

    /// The namespaces of every entity of `model` in the store `storeIdentifier`.
    init(model: ManagedObjectModel, storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
        var byNumber: [Int: ObjectIDNamespace] = [:]
        var byName: [String: ObjectIDNamespace] = [:]
        for (name, number) in model.entityNumbersByName {
            let namespace = ObjectIDNamespace.permanent(entityName: name, storeIdentifier: storeIdentifier)
            byNumber[number] = namespace
            byName[name] = namespace
        }
        self.byNumber = byNumber
        self.byName = byName
    }

    /// The namespace of the entity numbered `number` (`Z_ENT`), if the model has one.
    func namespace(entityNumber number: Int) -> ObjectIDNamespace? { byNumber[number] }

    /// The namespace of `entityName` (interned anew for a name the model does not have).
    func namespace(entityName: String) -> ObjectIDNamespace {
        byName[entityName] ?? .permanent(entityName: entityName, storeIdentifier: storeIdentifier)
    }

    /// The permanent ID of the row `key` of `entityName`.
    func id(entityName: String, key: Int64) -> ManagedObjectID {
        ManagedObjectID(namespace: namespace(entityName: entityName), key: key)
    }
}

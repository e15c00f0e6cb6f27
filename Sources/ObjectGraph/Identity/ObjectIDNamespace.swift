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

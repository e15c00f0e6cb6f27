import Foundation
import Synchronization

/// The identity of a managed object, safe to pass between contexts and queues.
///
/// Objects never cross contexts; their IDs do. A newly inserted object has a *temporary* ID until its
/// context saves it, when the store gives it a *permanent* one (its row's primary key). Like Core Data's
/// `NSManagedObjectID`, an ID has a URI form: `x-coredata://<store UUID>/Person/p42` when permanent,
/// `x-coredata:///Person/t<UUID><n>` when temporary.
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity, store and kind the key is unique within (interned: compared by identity).
    let namespace: ObjectIDNamespace
    /// The row's primary key (`Z_PK`) when permanent; a process-wide serial number when temporary.
    let key: Int64

    /// The name of the object's entity.
    public var entityName: String { namespace.entityName }
    /// The identifier of the store the object lives in; empty while the ID is temporary.
    public var storeIdentifier: String { namespace.storeIdentifier }
    /// Whether the object has not been saved yet.
    public var isTemporaryID: Bool { namespace.isTemporary }

    /// The ID `key` stands for within `namespace`.
    init(namespace: ObjectIDNamespace, key: Int64) {
        self.namespace = namespace
        self.key = key
    }

    /// The permanent ID of the row `primaryKey` of `entityName` in the store `storeIdentifier`: how a store
    /// (an ``IncrementalStore``) names the rows it returns.
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.init(namespace: .permanent(entityName: entityName, storeIdentifier: storeIdentifier), key: primaryKey)
    }

    /// An ID from its parts.
    init(entityName: String, storeIdentifier: String, key: Int64, isTemporaryID: Bool) {
        self.init(namespace: isTemporaryID ? .temporary(entityName: entityName)
            : .permanent(entityName: entityName, storeIdentifier: storeIdentifier), key: key)
    }

    private init(temporaryFor entityName: String, serial: Int64) {
        self.init(namespace: .temporary(entityName: entityName), key: serial)
    }

    /// The temporary ID a temporary URI's last part (after its `t`: this process's token, then the serial)
    /// names; nil when the token is another process's or the serial was never handed out.
    init?(temporaryURIReference reference: String, entityName: String) {
        guard reference.hasPrefix(Self.processToken) else { return nil }
        let digits = reference.dropFirst(Self.processToken.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let serial = Int64(digits),
            serial > 0, serial <= Self.temporarySerial.load(ordering: .relaxed)
        else { return nil }
        self.init(temporaryFor: entityName, serial: serial)
    }

    /// A fresh temporary ID for a newly inserted object of `entityName` (what a context gives a new object until
    /// its save; a store test can build ``StoreSaveRequest``s with them).
    public static func makeTemporary(entityName: String) -> ManagedObjectID {
        makeTemporary(in: .temporary(entityName: entityName))
    }

    /// A fresh temporary ID in `namespace` (an entity's ``EntityDescription/temporaryIDNamespace``).
    static func makeTemporary(in namespace: ObjectIDNamespace) -> ManagedObjectID {
        ManagedObjectID(namespace: namespace, key: temporarySerial.add(1, ordering: .relaxed).newValue)
    }

    /// The primary key of a permanent ID, or nil for a temporary one.
    public var primaryKey: Int64? { isTemporaryID ? nil : key }

    /// The URI form, as Core Data prints it.
    public var uriRepresentation: URL {
        let text =
            isTemporaryID
            ? "x-coredata:///\(entityName)/t\(Self.processToken)\(key)"
            : "x-coredata://\(storeIdentifier)/\(entityName)/p\(key)"
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    public var description: String { uriRepresentation.absoluteString }

    /// Equal IDs name the same object: same key, kind, entity and store. The namespace is almost always the
    /// same interned instance; its names are compared only when it is not (an ID read from text).
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && lhs.namespace.names(rhs.namespace)
    }

    /// Hashes the key alone: it tells IDs apart nearly always, and a uniquing table hashes every fetched ID.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    /// The hash a `Dictionary` or `Set` places an ID by: the key mixed with the table's seed (see
    /// ``HashMixing``), without the standard library's general-purpose hasher — a context's registry, row
    /// cache and a controller's tables look up an ID for every object a save, merge or fetch touches.
    public func _rawHashValue(seed: Int) -> Int { HashMixing.mix(key, seed: seed) }

    /// Orders IDs as fetches break ties: permanent IDs by primary key, then temporary IDs by creation; equal
    /// keys (rows of different hierarchies, or of different stores) by entity name, then by store identifier
    /// (the store's UUID text, byte by byte), so that results merged from several stores have one order.
    func precedes(_ other: ManagedObjectID) -> Bool {
        if isTemporaryID != other.isTemporaryID { return !isTemporaryID }
        if key != other.key { return key < other.key }
        if namespace.names(other.namespace) { return false }
        if entityName != other.entityName { return entityName < other.entityName }
        return storeIdentifier.utf8.lexicographicallyPrecedes(other.storeIdentifier.utf8)
    }

    private static let temporarySerial = Atomic<Int64>(0)
    private static let processToken = UUID().uuidString
}

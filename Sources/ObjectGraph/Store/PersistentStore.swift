import Foundation
import Synchronization

/// The kinds of store a coordinator can add: Core Data's store type strings, as a value.
///
/// `ObjectGraph` ships `.sqlite`, `.inMemory` and `.atomic`. Other stores (``IncrementalStore`` conformers,
/// such as `ObjectGraphPostgres`'s) register their type with
/// ``PersistentStoreCoordinator/registerStoreType(_:opener:)``, as Core Data's `registerStoreClass(_:type:)`.
public struct PersistentStoreType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type's name, as Core Data spells its store types ("SQLite", "InMemory", "Binary").
    public let rawValue: String

    /// A store type named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// One SQLite file in Core Data's layout (WAL mode).
    public static let sqlite = PersistentStoreType(rawValue: "SQLite")
    /// Rows kept in memory; nothing is written anywhere.
    public static let inMemory = PersistentStoreType(rawValue: "InMemory")
    /// One file read whole when the store is added and rewritten whole, atomically, by every save (Core Data's
    /// atomic store; the raw value is Core Data's `NSBinaryStoreType`, "Binary", since the file is a binary
    /// property list — in ObjectGraph's own format, see <doc:Stores>). Rows live in memory, as in `.inMemory`.
    public static let atomic = PersistentStoreType(rawValue: "Binary")

    /// The raw value.
    public var description: String { rawValue }
}

/// A store added to a coordinator: where the rows live.
///
/// The counterpart of Core Data's `NSPersistentStore`. Reading and writing go through contexts; this
/// object only describes the store. Stores are equal only to themselves (as `NSPersistentStore` objects are),
/// so they can be kept in sets, and in ``FetchRequest/affectedStores``.
public final class PersistentStore: Sendable, Hashable, CustomStringConvertible {
    /// The store's kind.
    public let type: PersistentStoreType
    /// The file, for file-backed stores.
    public let url: URL?
    /// The store's UUID (`Z_METADATA.Z_UUID` for SQLite), which permanent object IDs name.
    public let identifier: String
    /// The model configuration whose entities this store holds; nil for every entity.
    public let configurationName: String?
    /// The options the store was added with.
    public let options: PersistentStoreOptions
    let backend: any StoreBackend
    /// The store as its implementation sees it: the backend itself, or the third-party ``IncrementalStore`` the
    /// backend adapts.
    public var incrementalStore: any IncrementalStore { (backend as? ForeignStoreBackend)?.store ?? backend }
    /// The names of the entities this store holds; nil for every entity.
    let entityNames: Set<String>?
    private let currentMetadata: Locked<StoreMetadata>

    init(
        type: PersistentStoreType, url: URL?, identifier: String, metadata: StoreMetadata, backend: any StoreBackend,
        configurationName: String? = nil, entityNames: Set<String>? = nil,
        options: PersistentStoreOptions = PersistentStoreOptions()
    ) {
        self.type = type
        self.url = url
        self.identifier = identifier
        self.currentMetadata = Locked(metadata)
        self.backend = backend
        self.configurationName = configurationName
        self.entityNames = entityNames
        self.options = options
    }

    /// The store's metadata: type, UUID, the version hashes of the model it was written for, and the app's
    /// keys. Change it with ``PersistentStoreCoordinator/setMetadata(_:for:)``.
    public var metadata: StoreMetadata { currentMetadata.withLock { $0 } }

    /// Whether the store refuses every write (see ``PersistentStoreOptions/isReadOnly``).
    public var isReadOnly: Bool { options.isReadOnly }

    /// Whether the store holds objects of the entity named `name` (its configuration lists it, or it has none).
    public func holdsEntity(named name: String) -> Bool { entityNames?.contains(name) ?? true }

    /// How errors name the store: its file, or the in-memory store's identifier (as the backends do).
    var displayName: String {
        guard let url else { return "in-memory \(identifier)" }
        return url.isFileURL ? url.path : StoreURL.redacted(url)
    }

    /// Records metadata the backend has made durable.
    func replaceMetadata(_ metadata: StoreMetadata) { currentMetadata.withLock { $0 = metadata } }

    /// Whether `lhs` and `rhs` are the same store object.
    public static func == (lhs: PersistentStore, rhs: PersistentStore) -> Bool { lhs === rhs }

    /// Hashes the store's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The type, file (or "(memory)"), identifier, configuration and read-only flag, for logs.
    public var description: String {
        "<PersistentStore \(type.rawValue) \(url.map { $0.isFileURL ? $0.path : StoreURL.redacted($0) } ?? "(memory)") \(identifier)"
            + "\(configurationName.map { " configuration: \($0)" } ?? "")\(isReadOnly ? " read-only" : "")>"
    }
}

import Foundation

/// The kinds of store a coordinator can add.
public enum PersistentStoreType: String, Sendable, Hashable {
    /// One SQLite file in Core Data's layout (WAL mode).
    case sqlite = "SQLite"
    /// Rows kept in memory; nothing is written anywhere.
    case inMemory = "InMemory"
}

/// A store added to a coordinator: where the rows live.
///
/// The counterpart of Core Data's `NSPersistentStore`. Reading and writing go through contexts; this
/// object only describes the store.
public final class PersistentStore: Sendable, CustomStringConvertible {
    /// The store's kind.
    public let type: PersistentStoreType
    /// The file, for file-backed stores.
    public let url: URL?
    /// The store's UUID (`Z_METADATA.Z_UUID` for SQLite), which permanent object IDs name.
    public let identifier: String
    /// The store's metadata: type, UUID and the version hashes of the model it was written for.
    public let metadata: StoreMetadata
    let backend: any StoreBackend

    init(type: PersistentStoreType, url: URL?, identifier: String, metadata: StoreMetadata, backend: any StoreBackend) {
        self.type = type
        self.url = url
        self.identifier = identifier
        self.metadata = metadata
        self.backend = backend
    }

    public var description: String {
        "<PersistentStore \(type.rawValue) \(url?.path ?? "(memory)") \(identifier)>"
    }
}

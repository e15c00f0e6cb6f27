import Foundation
import ObjectGraph

/// Which kind of store a file is, told by its first bytes, so every command opens SQLite and atomic stores
/// alike: an atomic store is a binary property list (`bplist00`), anything else is taken for SQLite (whose
/// own checks then name what is wrong with it). A file that does not exist yet becomes an SQLite store.
enum StoreFileType {
    static func of(_ url: URL) -> PersistentStoreType {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .sqlite }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 8)) ?? Data()
        return header == Data("bplist00".utf8) ? .atomic : .sqlite
    }

    /// The store's metadata, read as its type requires.
    static func metadata(at url: URL) throws(ObjectGraphError) -> StoreMetadata {
        try PersistentStoreCoordinator.metadataForPersistentStore(ofType: of(url), at: url)
    }
}

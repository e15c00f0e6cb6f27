import Foundation

/// How much external binary data an SQLite store keeps beside its file: the values of attributes that allow
/// external storage that were large enough to go to files of `.<name>_SUPPORT/_EXTERNAL_DATA` (see
/// *External binary storage* in <doc:Stores>).
public struct ExternalBinaryDataUsage: Sendable, Hashable {
    /// The `_EXTERNAL_DATA` folder (it may not exist).
    public var folder: URL
    /// How many files it holds.
    public var fileCount: Int
    /// Their total size in bytes.
    public var byteCount: Int
}

extension PersistentStoreCoordinator {
    /// The external binary data of the SQLite store file at `url`, counted from the file system (no store is
    /// opened, nothing is read). Files a crash left behind are counted until the store is next opened.
    public static func externalBinaryDataUsage(ofStoreAt url: URL) -> ExternalBinaryDataUsage {
        let storage = ExternalBinaryStorage(storeURL: StoreFiles.resolved(url), threshold: ExternalBinaryStorage.defaultThreshold)
        let usage = storage.usage()
        return ExternalBinaryDataUsage(folder: storage.folder, fileCount: usage.files, byteCount: usage.bytes)
    }
}

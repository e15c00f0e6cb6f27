import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Store management for atomic stores: what ``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``,
/// ``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``,
/// ``PersistentStoreCoordinator/backupPersistentStore(_:to:)`` and
/// ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)`` do with `.atomic`.
///
/// An atomic store's file is always complete (every rewrite replaces it in one rename), so copying it is
/// copying its bytes, and every copy is written the same way: temporary file, `fsync`, rename.
extension PersistentStoreCoordinator {
    /// Deletes the atomic store file at `url` (and temporary files a crash left next to it), first removing the
    /// store from this coordinator when it is added, and stopping its writes.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when something that is not an atomic
    ///   store is at `url` (nothing is deleted), ``ObjectGraphError/fileOperationFailed(path:reason:)``.
    func destroyAtomicStore(at url: URL) throws(ObjectGraphError) {
        let file = StoreFiles.resolved(url)
        if StoreFiles.status(of: file).exists { try Self.requireAtomicStore(at: file, allowEmpty: true) }
        if let added = persistentStore(for: file) {
            try remove(added)
            (added.backend as? InMemoryStore)?.file?.close()
        }
        AtomicStoreFile.removeLeftoverTemporaries(of: file)
        try StoreFiles.remove(file)
    }

    /// Replaces the atomic store at `destinationURL` with a copy of the one at `sourceURL` (same UUID), written
    /// atomically: the destination holds its old contents or the copy, never a mix.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the source is not an atomic store
    ///   or the destination exists and is neither one nor an empty file; ``ObjectGraphError/damagedStore(path:reason:)``
    ///   for a damaged source; ``ObjectGraphError/storeInUse(path:)`` when the destination is added to this
    ///   coordinator; ``ObjectGraphError/unsupportedStoreOperation(_:)`` for a store replaced with itself.
    func replaceAtomicStore(at destinationURL: URL, withPersistentStoreFrom sourceURL: URL) throws(ObjectGraphError) {
        let source = StoreFiles.resolved(sourceURL)
        let destination = StoreFiles.resolved(destinationURL)
        guard source.path != destination.path else {
            throw .unsupportedStoreOperation("\(source.path) cannot be replaced with itself")
        }
        let bytes = try Self.requireAtomicStore(at: source, allowEmpty: false)
        _ = try Self.readAtomicArchive(at: source)  // The whole source must read, not only its header.
        if persistentStore(for: destination) != nil { throw .storeInUse(path: destination.path) }
        if StoreFiles.status(of: destination).exists { try Self.requireAtomicStore(at: destination, allowEmpty: true) }
        try StoreFiles.createFolder(of: destination)
        try AtomicStoreFile.replace(destination, with: bytes)
    }

    /// Writes a copy of the added atomic store `store` to the new file `destination` (same UUID).
    ///
    /// - Throws: ``ObjectGraphError/destinationExists(path:)``, or the errors of reading and writing the files.
    func backupAtomicStore(_ store: PersistentStore, to destination: URL) throws(ObjectGraphError) {
        guard let file = (store.backend as? InMemoryStore)?.file else {
            throw .unsupportedStoreOperation("the atomic store \(store.identifier) has no file")
        }
        guard file.url.path != destination.path else {
            throw .unsupportedStoreOperation("\(file.url.path) cannot be backed up onto itself")
        }
        guard !StoreFiles.status(of: destination).exists else { throw .destinationExists(path: destination.path) }
        try StoreFiles.createFolder(of: destination)
        try AtomicStoreFile.replace(destination, with: try Self.requireAtomicStore(at: file.url, allowEmpty: false))
    }

    /// The atomic store `store` becomes at the new file `destination`: every row with its key, version and
    /// relationships, the key counters, the app's metadata keys and the UUID; not yet added to the coordinator.
    ///
    /// - Throws: the errors of reading `store` or writing the file (which then does not exist).
    func makeMigratedAtomicStore(from store: PersistentStore, at destination: URL, options: PersistentStoreOptions)
        throws(ObjectGraphError) -> PersistentStore
    {
        let contents = try StoreContents.read(from: store, model: managedObjectModel)
        let metadata = StoreMetadata(storeType: PersistentStoreType.atomic.rawValue, storeUUID: store.identifier,
            entityVersionHashes: managedObjectModel.entityVersionHashes,
            versionIdentifiers: managedObjectModel.versionIdentifiers.sorted(), userInfo: contents.userInfo,
            modelVersionName: managedObjectModel.versionName)
        let file = AtomicStoreFile(url: destination, identifier: store.identifier, metadata: metadata)
        let backend = InMemoryStore(identifier: store.identifier, model: managedObjectModel,
            isReadOnly: options.isReadOnly, file: file)
        backend.load(contents)
        try StoreFiles.createFolder(of: destination)
        try file.write(backend.state.withLock { $0 }, metadata: metadata, model: managedObjectModel)
        return PersistentStore(type: .atomic, url: destination, identifier: store.identifier, metadata: metadata,
            backend: backend, configurationName: store.configurationName, entityNames: store.entityNames,
            options: options)
    }

    /// Checks that the file at `url` is an atomic store (by its header: a damaged one counts, so that it can be
    /// destroyed or replaced) and returns its bytes.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for a folder, a missing file, an empty
    ///   file (unless `allowEmpty`), an SQLite database or any file that is not an atomic store.
    @discardableResult
    static func requireAtomicStore(at url: URL, allowEmpty: Bool) throws(ObjectGraphError) -> Data {
        let (exists, isDirectory) = StoreFiles.status(of: url)
        guard exists else { throw .notAnObjectGraphStore(path: url.path, reason: "it does not exist") }
        guard !isDirectory else { throw .notAnObjectGraphStore(path: url.path, reason: "it is a folder") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .fileOperationFailed(path: url.path, reason: "it cannot be read (\(error))")
        }
        if data.isEmpty {
            if allowEmpty { return data }
            throw .notAnObjectGraphStore(path: url.path, reason: "the file is empty")
        }
        do throws(ObjectGraphError) {
            _ = try AtomicStoreArchive.decode(data, path: url.path)
        } catch {
            switch error {
            case .damagedStore, .incompatibleStore: break  // An atomic store, if not a readable one.
            default: throw error
            }
        }
        return data
    }

    /// Runs `build` (which makes the store that replaces `store` and puts it in its place) while the atomic
    /// store's saves wait, then stops the old file's writes, so that no save is lost in the old file.
    func replacingAtomicStore(_ store: PersistentStore, _ build: () throws(ObjectGraphError) -> PersistentStore)
        throws(ObjectGraphError) -> PersistentStore
    {
        guard let file = (store.backend as? InMemoryStore)?.file else { return try build() }
        return try file.closing(after: build)
    }
}

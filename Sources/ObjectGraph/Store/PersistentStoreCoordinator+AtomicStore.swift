import Foundation

/// Adding atomic stores (``PersistentStoreType/atomic``): one file, read whole when the store is added and
/// rewritten whole by every save (see ``AtomicStoreFile`` for how a rewrite stays atomic, and
/// ``AtomicStoreArchive`` for the format).
extension PersistentStoreCoordinator {
    /// Opens the atomic store at `url`, or creates it (with its folder) when there is no file or an empty one.
    ///
    /// A store written with another version of the model is migrated (see
    /// ``migratedAtomicState(_:metadata:path:options:)``) and the migrated store written back before it is
    /// used; when migration is not allowed or not possible the store is refused and the file left alone.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for a folder, a file that is not an
    ///   atomic store, or a read-only store that does not exist; ``ObjectGraphError/damagedStore(path:reason:)``
    ///   for a truncated or damaged file; ``ObjectGraphError/incompatibleModel(path:entities:reason:)`` and the
    ///   migration errors; ``ObjectGraphError/fileOperationFailed(path:reason:)`` when the file cannot be read
    ///   or written.
    func makeAtomicStore(
        at url: URL, configurationName: String?, entityNames: Set<String>?, options: PersistentStoreOptions
    ) throws(ObjectGraphError) -> PersistentStore {
        _ = try options.validatedPragmas()  // Accepted and ignored, as by the in-memory store.
        // Renaming onto a symbolic link would replace the link: write where it points.
        let file = StoreFiles.resolved(url)
        let (exists, isDirectory) = StoreFiles.status(of: file)
        if isDirectory { throw .notAnObjectGraphStore(path: file.path, reason: "it is a folder") }
        let backend: InMemoryStore
        let metadata: StoreMetadata
        if !exists || StoreFiles.size(of: file) == 0 {
            guard !options.isReadOnly else {
                throw .notAnObjectGraphStore(path: file.path, reason: "it does not exist (a read-only store is never created)")
            }
            try StoreFiles.createFolder(of: file)
            let identifier = UUID().uuidString
            metadata = StoreMetadata(storeType: PersistentStoreType.atomic.rawValue, storeUUID: identifier,
                entityVersionHashes: managedObjectModel.entityVersionHashes,
                versionIdentifiers: managedObjectModel.versionIdentifiers.sorted(),
                modelVersionName: managedObjectModel.versionName)
            let atomicFile = AtomicStoreFile(url: file, identifier: identifier, metadata: metadata)
            try atomicFile.write(InMemoryStore.State(), metadata: metadata, model: managedObjectModel)
            backend = InMemoryStore(identifier: identifier, model: managedObjectModel, file: atomicFile,
                recordsHistory: options.persistentHistoryTracking)
        } else {
            if !options.isReadOnly { AtomicStoreFile.removeLeftoverTemporaries(of: file) }
            let (archive, stored) = try Self.readAtomicArchive(at: file)
            var state: InMemoryStore.State
            var current = stored
            if stored.entityVersionHashes == managedObjectModel.entityVersionHashes {
                state = try InMemoryStore.state(of: archive, model: managedObjectModel, identifier: archive.uuid,
                    path: file.path)
            } else {
                (state, current) = try migratedAtomicState(archive, metadata: stored, path: file.path, options: options)
            }
            let atomicFile = AtomicStoreFile(url: file, identifier: archive.uuid, metadata: current)
            if current != stored {
                // The migrated store replaces the old file in one rename: a crash before it leaves the old store.
                try atomicFile.write(state, metadata: current, model: managedObjectModel)
            }
            metadata = current
            // A file that holds history keeps recording it, as an SQLite store with history tables does.
            backend = InMemoryStore(identifier: archive.uuid, model: managedObjectModel, isReadOnly: options.isReadOnly,
                file: atomicFile, recordsHistory: options.persistentHistoryTracking || archive.history != nil)
            backend.state.withLock { swap(&$0, &state) }
        }
        return PersistentStore(type: .atomic, url: url, identifier: backend.identifier, metadata: metadata,
            backend: backend, configurationName: configurationName, entityNames: entityNames, options: options)
    }

    /// Reads and checks the archive of the atomic store file at `file`, and its metadata.
    ///
    /// - Throws: the errors of ``AtomicStoreArchive/decode(_:path:)``, ``ObjectGraphError/damagedStore(path:reason:)``
    ///   for unreadable metadata, ``ObjectGraphError/fileOperationFailed(path:reason:)`` when the file cannot be read.
    static func readAtomicArchive(at file: URL) throws(ObjectGraphError) -> (AtomicStoreArchive, StoreMetadata) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .fileOperationFailed(path: file.path, reason: "it cannot be read (\(error))")
        }
        let archive = try AtomicStoreArchive.decode(data, path: file.path)
        guard !archive.uuid.isEmpty else { throw .damagedStore(path: file.path, reason: "its UUID is empty") }
        guard let metadata = StoreMetadata(propertyList: archive.metadata, storeUUID: archive.uuid) else {
            throw .damagedStore(path: file.path, reason: "its metadata is not a property list dictionary")
        }
        return (archive, metadata)
    }

    /// Reads the metadata of the store at `url` without adding it (Core Data's
    /// `metadataForPersistentStore(ofType:at:)`): an SQLite store's `Z_METADATA`, or an atomic store's header.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the file is not a store of that
    ///   type, ``ObjectGraphError/unsupportedStoreOperation(_:)`` for `.inMemory` (no file), or read errors.
    public static func metadataForPersistentStore(ofType type: PersistentStoreType, at url: URL)
        throws(ObjectGraphError) -> StoreMetadata
    {
        switch type {
        case .sqlite: return try metadataForPersistentStore(at: url)
        case .atomic: return try readAtomicArchive(at: StoreFiles.resolved(url)).1
        case .inMemory: throw .unsupportedStoreOperation("an in-memory store has no file to read metadata from")
        default: throw .unsupportedStoreOperation("\(type.rawValue) stores have no file to read metadata from")
        }
    }
}

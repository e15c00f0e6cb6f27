import Foundation
import SQLiteStorage

/// Store management, as Core Data's `NSPersistentStoreCoordinator` offers it: destroying a store's files,
/// replacing one store with a copy of another, backing a store up while it is in use, and migrating a store to
/// a new file or type.
///
/// Every copy of an SQLite store goes through SQLite's online backup API, never a copy of the file alone: the
/// copy is one consistent snapshot with every committed transaction, including those still in the `-wal`
/// file, even while other contexts (or processes) keep writing. Core Data's support folder
/// `.<name>_SUPPORT` (external binary data) travels with the store: copied with it, removed with it.
///
/// These methods refuse, with a typed error and without touching anything, to delete or overwrite a file
/// that is not an ObjectGraph store (an SQLite file with `Z_METADATA`), which Core Data does not check.
extension PersistentStoreCoordinator {
    /// Deletes the store at `url`: its file, its `-wal`, `-shm` and `-journal` files, and its support folder
    /// (`.<name>_SUPPORT`, where external binary data lives). Core Data's
    /// `destroyPersistentStore(at:type:options:)`.
    ///
    /// When the store is added to this coordinator it is removed first, as Core Data does: its entities are no
    /// longer routed to it and IDs naming it no longer resolve; its connections are closed, so a save still on
    /// its way fails (and can be retried) instead of writing into a deleted file. Other coordinators and
    /// processes that have the file open are not told: close them first.
    ///
    /// A missing file is not an error (side files and a support folder left behind are still removed).
    ///
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: storeURL, type: .sqlite)
    /// ```
    ///
    /// - Parameters:
    ///   - url: the store file.
    ///   - type: `.sqlite`, or `.atomic` (the file and temporary files a crash left); an `.inMemory` store has
    ///     no files, so nothing is done.
    ///   - options: accepted for Core Data's signature; destroying does not depend on them.
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when something that is not an
    ///   ObjectGraph store is at `url` (a folder, an empty file, another SQLite database, any other file):
    ///   nothing is deleted and no store is removed. ``ObjectGraphError/fileOperationFailed(path:reason:)``
    ///   when a file cannot be removed.
    public func destroyPersistentStore(
        at url: URL, type: PersistentStoreType = .sqlite, options: PersistentStoreOptions = PersistentStoreOptions()
    ) throws(ObjectGraphError) {
        if type == .atomic { return try destroyAtomicStore(at: url) }
        guard type == .sqlite else { return }
        let file = StoreFiles.resolved(url)
        // Check first: never delete (or detach) anything that is not a store.
        if StoreFiles.status(of: file).exists { try StoreFiles.requireStore(at: file) }
        if let added = persistentStore(for: file) {
            try remove(added)
            (added.backend as? SQLiteStore)?.closeConnections()
        }
        try StoreFiles.removeStore(at: file)
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`, made with SQLite's online
    /// backup: Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    ///
    /// The source may be in use (added to this or another coordinator, written by another process): the copy
    /// is one consistent snapshot of its committed state, including transactions still in its `-wal` file, and
    /// a transaction open at the time is not included. The destination, when it exists, is overwritten as an
    /// SQLite database (in one transaction, through its own `-wal`, which SQLite keeps consistent), so its old
    /// `-wal` and `-shm` can never be replayed over the copy; side files left without a main file are removed
    /// first. The copy keeps the source's UUID, so object IDs and URIs of the source name it. When the
    /// destination was a store, the source's support folder replaces its own; a new destination whose support
    /// folder name is already taken is refused if the source has one to copy.
    ///
    /// Connections that other coordinators or processes hold on the destination see the new contents on
    /// their next read, but their row caches and contexts do not know: close them first.
    ///
    /// ```swift
    /// // Restore a backup: detach the live store, replace it, add it again.
    /// try coordinator.remove(store)
    /// try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL)
    /// try coordinator.addPersistentStore(ofType: .sqlite, at: storeURL)
    /// ```
    ///
    /// - Parameters:
    ///   - destinationURL: the store to overwrite; created (with its folder) when it does not exist.
    ///   - destinationOptions: accepted for Core Data's signature; the copy does not depend on them.
    ///   - sourceURL: the store to copy; it is only read.
    ///   - sourceOptions: with ``PersistentStoreOptions/isReadOnly`` the source file is opened read-only, so
    ///     nothing (not even a WAL checkpoint) writes it; otherwise its contents are only read.
    ///   - type: `.sqlite`, or `.atomic` (the file's bytes are copied and written atomically); in-memory stores
    ///     have no files to replace.
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the source is not a store, or
    ///   when the destination exists and is neither a store nor an empty file;
    ///   ``ObjectGraphError/storeInUse(path:)`` when the destination is added to this coordinator (remove it
    ///   first); ``ObjectGraphError/unsupportedStoreOperation(_:)`` for `.inMemory` or a store replaced with
    ///   itself; ``ObjectGraphError/sqlite(_:)`` when the copy fails, which leaves the destination as it was.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: PersistentStoreOptions = PersistentStoreOptions(),
        withPersistentStoreFrom sourceURL: URL, sourceOptions: PersistentStoreOptions = PersistentStoreOptions(),
        type: PersistentStoreType = .sqlite
    ) throws(ObjectGraphError) {
        if type == .atomic {
            return try replaceAtomicStore(at: destinationURL, withPersistentStoreFrom: sourceURL)
        }
        guard type == .sqlite else {
            throw .unsupportedStoreOperation("an in-memory store has no file to replace")
        }
        let source = StoreFiles.resolved(sourceURL)
        let destination = StoreFiles.resolved(destinationURL)
        guard source.path != destination.path else {
            throw .unsupportedStoreOperation("\(source.path) cannot be replaced with itself")
        }
        try StoreFiles.requireStore(at: source)
        if persistentStore(for: destination) != nil { throw .storeInUse(path: destination.path) }
        let (exists, isDirectory) = StoreFiles.status(of: destination)
        if isDirectory { throw .notAnObjectGraphStore(path: destination.path, reason: "it is a folder") }
        if exists {
            // An empty file holds nothing to lose; anything else must be a store.
            if StoreFiles.size(of: destination) != 0 { try StoreFiles.requireStore(at: destination) }
            try StoreFiles.onlineCopy(from: source, to: destination, readOnlySource: sourceOptions.isReadOnly)
            try StoreFiles.copySupportDirectory(from: source, to: destination, replacing: true)
        } else {
            try copyToNewFile(destination, supportFrom: source) { () throws(ObjectGraphError) in
                try StoreFiles.onlineCopy(from: source, to: destination, readOnlySource: sourceOptions.isReadOnly)
                try StoreFiles.copySupportDirectory(from: source, to: destination, replacing: false)
            }
        }
    }

    /// Writes a copy of `store` to a new file at `url` while the app keeps using the store: an ObjectGraph
    /// convenience (Core Data users call `migratePersistentStore` on a second coordinator for this).
    ///
    /// An SQLite store is copied with SQLite's online backup from its live file: one consistent snapshot with
    /// every committed save, including those still in the `-wal` file, taken without stopping saves (a save
    /// in progress is not included). An in-memory store is written as a new SQLite store. Either way the copy
    /// keeps the store's UUID, so it can later be added in its place (or through
    /// ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``) and the
    /// app's saved object URIs still resolve. The store's support folder is copied along.
    ///
    /// ```swift
    /// try coordinator.backupPersistentStore(store, to: backupFolder.appendingPathComponent("People.sqlite"))
    /// ```
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` when `store` is not added to this coordinator;
    ///   ``ObjectGraphError/destinationExists(path:)`` when a file or folder is already at `url` (nothing is
    ///   overwritten); ``ObjectGraphError/storeInUse(path:)`` when `url` is a store added to this coordinator;
    ///   ``ObjectGraphError/sqlite(_:)`` or a read error when the copy fails (no partial copy is left).
    public func backupPersistentStore(_ store: PersistentStore, to url: URL) throws(ObjectGraphError) {
        try requireAdded(store)
        let destination = StoreFiles.resolved(url)
        if persistentStore(for: destination) != nil { throw .storeInUse(path: destination.path) }
        switch store.type {
        case .sqlite:
            guard let file = store.url.map(StoreFiles.resolved) else {
                throw .unsupportedStoreOperation("the SQLite store \(store.identifier) has no file")
            }
            guard file.path != destination.path else {
                throw .unsupportedStoreOperation("\(file.path) cannot be backed up onto itself")
            }
            try copyToNewFile(destination, supportFrom: file) { () throws(ObjectGraphError) in
                try StoreFiles.onlineCopy(from: file, to: destination, readOnlySource: store.isReadOnly)
                try StoreFiles.copySupportDirectory(from: file, to: destination, replacing: false)
            }
        case .inMemory:
            let contents = try StoreContents.read(from: store, model: managedObjectModel)
            try copyToNewFile(destination, supportFrom: nil) { () throws(ObjectGraphError) in
                try writeNewSQLiteStore(contents, identifier: store.identifier, at: destination)
            }
        case .atomic:
            try backupAtomicStore(store, to: destination)
        default:
            let contents = try StoreContents.read(from: store, model: managedObjectModel)
            try copyToNewFile(destination, supportFrom: nil) { () throws(ObjectGraphError) in
                try writeNewSQLiteStore(contents, identifier: store.identifier, at: destination)
            }
        }
    }

    /// Moves `store` to a new file and/or type and returns the new store, which takes the old one's place in
    /// this coordinator: Core Data's `migratePersistentStore(_:to:options:type:)`. The old store is removed
    /// from the coordinator and its file is left as it was.
    ///
    /// - SQLite to SQLite: the file is copied with SQLite's online backup (with its support folder).
    /// - To or from `.inMemory` or `.atomic`: every row is copied with its primary key, version and relationships (order
    ///   included), and the key counters move along, so keys handed out ahead of a save stay unique.
    /// - To a registered type that can be filled (`.postgreSQL` from `ObjectGraphPostgres`, after its `register()`):
    ///   the same, into the database the URL names, in one server transaction; a database that already holds a store
    ///   is refused with ``ObjectGraphError/destinationExists(path:)``.
    ///
    /// **Object IDs keep working.** The new store keeps the old one's UUID (Core Data's metadata copy does the
    /// same), and rows keep their keys and versions, so every ``ManagedObjectID`` and URI of the old store
    /// resolves in the new one, registered objects fault in from it, and contexts' pending changes save into
    /// it without merge conflicts. The app's metadata keys (``StoreMetadata/userInfo``) are copied; the new
    /// store keeps the old one's configuration.
    ///
    /// Saves through this coordinator wait while an SQLite or atomic store is copied, then go to the new store; a save
    /// that had already reached the old store's file at the swap fails and can be retried. Saves into an
    /// in-memory store during its migration are not waited for: as with Core Data, migrate when no context
    /// is saving into it.
    ///
    /// ```swift
    /// let onDisk = try coordinator.migratePersistentStore(scratch, to: fileURL, type: .sqlite)
    /// ```
    ///
    /// - Parameters:
    ///   - store: a store added to this coordinator.
    ///   - url: the new file for `.sqlite` and `.atomic`, which must not exist; ignored for `.inMemory`; for a
    ///     registered type that can be filled (`ObjectGraphPostgres`'s `.postgreSQL`), the store's server URL, where
    ///     no store may be yet (the type fills it all or nothing, in one server transaction).
    ///   - options: how the new store is opened (read-only, SQLite pragmas).
    ///   - type: the new store's type.
    /// - Returns: the new store, added to the coordinator in the old one's place.
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` when `store` is not added;
    ///   ``ObjectGraphError/destinationExists(path:)`` when something is already at `url`;
    ///   ``ObjectGraphError/storeAlreadyAdded(path:)`` when `url` is a store added to this coordinator;
    ///   ``ObjectGraphError/invalidStoreOption(name:reason:)``; or the error that stopped the copy. On any
    ///   error the old store stays in the coordinator and no new file is left behind.
    @discardableResult
    public func migratePersistentStore(
        _ store: PersistentStore, to url: URL, options: PersistentStoreOptions = PersistentStoreOptions(),
        type: PersistentStoreType
    ) throws(ObjectGraphError) -> PersistentStore {
        try requireAdded(store)
        _ = try options.validatedPragmas()
        // A registered type that can be filled (a server database) is not a file: its restorer checks the URL.
        let restorer = Self.storeRestorer(for: type)
        let destination = restorer == nil ? StoreFiles.resolved(url) : url
        if type != .inMemory {
            if let added = persistentStore(for: destination) { throw .storeAlreadyAdded(path: added.displayName) }
            if restorer == nil, StoreFiles.status(of: destination).exists {
                throw .destinationExists(path: destination.path)
            }
        }
        let build = { () throws(ObjectGraphError) -> PersistentStore in
            let replacement: PersistentStore
            if let restorer {
                replacement = try self.makeRestoredStore(from: store, type: type, at: destination, options: options,
                    restorer: restorer)
            } else {
                replacement = try self.makeMigratedStore(from: store, type: type, at: destination, options: options)
            }
            guard self.exchange(store, for: replacement) else {
                if let file = replacement.url, file.isFileURL {
                    (replacement.backend as? SQLiteStore)?.closeConnections()
                    let copiedSupport = store.url.map {
                        store.type == .sqlite && StoreFiles.status(of: StoreFiles.supportDirectory(of: $0)).isDirectory
                    } ?? false
                    try? StoreFiles.removeStore(at: file, includingSupportDirectory: copiedSupport)
                }
                throw .unknownStore(identifier: store.identifier)
            }
            return replacement
        }
        guard let old = store.backend as? SQLiteStore else { return try replacingAtomicStore(store, build) }
        // Holding the old store's writer keeps this coordinator's saves out until the new store has taken its
        // place; then the writer is closed, so a save that still reaches the old store fails instead of being lost.
        let replacement = try old.withWriter { connection throws(ObjectGraphError) in
            let replacement = try build()
            connection.close()
            return replacement
        }
        old.closeConnections()
        return replacement
    }

    // MARK: Helpers

    /// Throws ``ObjectGraphError/unknownStore(identifier:)`` unless `store` is one of this coordinator's.
    private func requireAdded(_ store: PersistentStore) throws(ObjectGraphError) {
        guard persistentStores.contains(where: { $0 === store }) else { throw .unknownStore(identifier: store.identifier) }
    }

    /// Runs `write`, which creates the store file `destination` (nothing may be there yet) and copies the
    /// support folder of `source`, if any; if it fails, removes whatever it created, so no partial store is left.
    private func copyToNewFile(
        _ destination: URL, supportFrom source: URL?, _ write: () throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        try StoreFiles.prepareNewDestination(destination, copyingSupportFrom: source)
        let supportExisted = StoreFiles.status(of: StoreFiles.supportDirectory(of: destination)).exists
        do {
            try write()
        } catch {
            try? StoreFiles.removeStore(at: destination, includingSupportDirectory: !supportExisted)
            throw error
        }
    }

    /// Creates an SQLite store at `destination` holding `contents`, with the UUID `identifier`; values of
    /// external-storage attributes from `externalThreshold` bytes go to files.
    private func writeNewSQLiteStore(
        _ contents: StoreContents, identifier: String, at destination: URL,
        externalThreshold: Int = ExternalBinaryStorage.defaultThreshold
    ) throws(ObjectGraphError) {
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = externalThreshold
        // Created with a UUID of its own, then given the source's, then reopened so that the rows' IDs name it.
        let created = try SQLiteStore(path: destination.path, model: managedObjectModel, options: options)
        defer { created.closeConnections() }
        try created.adoptIdentity(identifier, userInfo: contents.userInfo)
        created.closeConnections()
        let filling = try SQLiteStore(path: destination.path, model: managedObjectModel, options: options)
        defer { filling.closeConnections() }
        guard filling.identifier == identifier else {
            throw .notAnObjectGraphStore(path: destination.path, reason: "its UUID could not be set to \(identifier)")
        }
        try filling.load(contents)
    }

    /// The store `store` becomes at `destination` (a file for `.sqlite`), not yet added to the coordinator.
    private func makeMigratedStore(
        from store: PersistentStore, type: PersistentStoreType, at destination: URL, options: PersistentStoreOptions
    ) throws(ObjectGraphError) -> PersistentStore {
        switch type {
        case .inMemory:
            let contents = try StoreContents.read(from: store, model: managedObjectModel)
            let backend = InMemoryStore(identifier: store.identifier, model: managedObjectModel,
                isReadOnly: options.isReadOnly)
            backend.load(contents)
            let metadata = StoreMetadata(storeType: PersistentStoreType.inMemory.rawValue, storeUUID: store.identifier,
                entityVersionHashes: managedObjectModel.entityVersionHashes,
                versionIdentifiers: managedObjectModel.versionIdentifiers.sorted(), userInfo: contents.userInfo)
            return PersistentStore(type: .inMemory, url: nil, identifier: store.identifier, metadata: metadata,
                backend: backend, configurationName: store.configurationName, entityNames: store.entityNames,
                options: options)
        case .atomic:
            return try makeMigratedAtomicStore(from: store, at: destination, options: options)
        default:
            guard type == .sqlite else {
                throw .unsupportedStoreOperation("migrating a store to type \(type.rawValue) is not supported")
            }
            let file = store.type == .sqlite ? store.url.map(StoreFiles.resolved) : nil
            try copyToNewFile(destination, supportFrom: file) { () throws(ObjectGraphError) in
                if let file {
                    try StoreFiles.onlineCopy(from: file, to: destination, readOnlySource: store.isReadOnly)
                    try StoreFiles.copySupportDirectory(from: file, to: destination, replacing: false)
                } else {
                    let contents = try StoreContents.read(from: store, model: managedObjectModel)
                    try writeNewSQLiteStore(contents, identifier: store.identifier, at: destination,
                        externalThreshold: options.externalBinaryDataThreshold)
                }
            }
            do {
                let backend = try SQLiteStore(path: destination.path, model: managedObjectModel, options: options)
                let metadata = backend.metadata ?? StoreMetadata(storeType: type.rawValue,
                    storeUUID: backend.identifier, entityVersionHashes: managedObjectModel.entityVersionHashes)
                return PersistentStore(type: .sqlite, url: destination, identifier: backend.identifier,
                    metadata: metadata, backend: backend, configurationName: store.configurationName,
                    entityNames: store.entityNames, options: options)
            } catch {
                // Only a support folder copied from the old store is this migration's to remove.
                let copiedSupport = file.map { StoreFiles.status(of: StoreFiles.supportDirectory(of: $0)).isDirectory } ?? false
                try? StoreFiles.removeStore(at: destination, includingSupportDirectory: copiedSupport)
                throw error
            }
        }
    }
}

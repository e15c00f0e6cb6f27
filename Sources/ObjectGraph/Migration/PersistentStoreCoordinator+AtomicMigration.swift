import Foundation

extension PersistentStoreCoordinator {
    /// Lightweight migration of an atomic store, by way of the SQLite migrator: the rows are written, with the
    /// model version that wrote them, into a temporary SQLite store (in the system's temporary folder); the
    /// ``LightweightMigrator`` migrates that store in place, exactly as it migrates an SQLite store (the same
    /// inferred changes, the same refusals); the migrated rows are read back with this coordinator's model.
    /// The caller writes them to the atomic file in one rename, so a crash at any point leaves the old file.
    ///
    /// The same options decide as for SQLite stores (``PersistentStoreOptions/migratesAutomatically``,
    /// ``PersistentStoreOptions/infersMappingModel``, ``PersistentStoreOptions/modelBundleURL``), and a
    /// read-only store is never migrated.
    ///
    /// - Returns: the migrated rows and the store's new metadata (this model's hashes and version).
    /// - Throws: ``ObjectGraphError/incompatibleModel(path:entities:reason:)`` when migration is off or no version
    ///   of the model wrote the store, ``ObjectGraphError/migrationNotInferable(path:from:to:change:reason:)`` for
    ///   a change that cannot be inferred, or an error of the temporary store. The file is untouched in every case.
    func migratedAtomicState(
        _ archive: AtomicStoreArchive, metadata: StoreMetadata, path: String, options: PersistentStoreOptions
    ) throws(ObjectGraphError) -> (InMemoryStore.State, StoreMetadata) {
        let entities = LightweightMigrator.differing(metadata.entityVersionHashes, managedObjectModel)
        func refuse(_ reason: String) -> ObjectGraphError {
            .incompatibleModel(path: path, entities: entities, reason: reason)
        }
        let bundleURL = try migrationBundleURL(options: options, refuse: refuse)
        let bundle: ModelBundle
        var source: ManagedObjectModel?
        do throws(ModelLoadError) {
            bundle = try ModelBundle(contentsOf: bundleURL)
            for name in bundle.versionNames.reversed() {
                let version = try bundle.model(named: name)
                if version.entityVersionHashes == metadata.entityVersionHashes {
                    source = version
                    break
                }
            }
        } catch {
            throw refuse("the model bundle cannot be read (\(error))")
        }
        guard let source else {
            throw refuse("no version of \(bundle.url.lastPathComponent) (\(bundle.versionNames.joined(separator: ", "))) "
                + "has the store's entity version hashes, so the store's model is unknown")
        }
        let sourceRows = InMemoryStore(identifier: archive.uuid, model: source)
        var sourceState = try InMemoryStore.state(of: archive, model: source, identifier: archive.uuid, path: path)
        sourceRows.state.withLock { swap(&$0, &sourceState) }

        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-atomic-migration-" + UUID().uuidString, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scratch = folder.appendingPathComponent("store.sqlite")
        do throws(ObjectGraphError) {
            try StoreFiles.createFolder(of: scratch)
            let created = try SQLiteStore(path: scratch.path, model: source)
            try created.adoptIdentity(archive.uuid, userInfo: metadata.userInfo)
            created.closeConnections()
            let filling = try SQLiteStore(path: scratch.path, model: source)
            defer { filling.closeConnections() }
            try filling.load(sourceRows.contents(userInfo: metadata.userInfo))
            filling.closeConnections()

            try LightweightMigrator(bundle: bundle, destination: managedObjectModel).migrate(storeAt: scratch)

            let migrated = try SQLiteStore(path: scratch.path, model: managedObjectModel)
            defer { migrated.closeConnections() }
            let contents = try StoreContents.read(backend: migrated, userInfo: metadata.userInfo,
                model: managedObjectModel)
            let destination = InMemoryStore(identifier: archive.uuid, model: managedObjectModel)
            destination.load(contents)
            var updated = metadata
            updated.entityVersionHashes = managedObjectModel.entityVersionHashes
            updated.versionIdentifiers = managedObjectModel.versionIdentifiers.sorted()
            updated.modelVersionName = managedObjectModel.versionName
            return (destination.state.withLock { $0 }, updated)
        } catch {
            throw Self.naming(path, insteadOf: scratch.path, in: error)
        }
    }

    /// `error` with the atomic store's path where the temporary SQLite store's path is.
    private static func naming(_ path: String, insteadOf scratch: String, in error: ObjectGraphError) -> ObjectGraphError {
        func fix(_ text: String) -> String { text.replacingOccurrences(of: scratch, with: path) }
        switch error {
        case let .incompatibleModel(at, entities, reason):
            return .incompatibleModel(path: fix(at), entities: entities, reason: fix(reason))
        case let .migrationNotInferable(at, from, to, change, reason):
            return .migrationNotInferable(path: fix(at), from: from, to: to, change: change, reason: fix(reason))
        case let .notAnObjectGraphStore(at, reason):
            return .notAnObjectGraphStore(path: fix(at), reason: fix(reason))
        case let .incompatibleStore(at, reason):
            return .incompatibleStore(path: fix(at), reason: fix(reason))
        default:
            return error
        }
    }
}

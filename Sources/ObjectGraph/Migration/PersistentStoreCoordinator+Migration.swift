import Foundation

extension PersistentStoreCoordinator {
    /// The compatibility check of adding an SQLite store, and the automatic lightweight migration.
    ///
    /// A store whose metadata holds the model's entity version hashes is left alone, and so is one Core Data
    /// wrote whose schema is the model's (see ``StoreCompatibility``; such a store that differs is refused with
    /// ``ObjectGraphError/incompatibleStore(path:reason:)``). Otherwise, when the
    /// options allow it (``PersistentStoreOptions/migratesAutomatically`` and
    /// ``PersistentStoreOptions/infersMappingModel``, both on by default) and the versions of the model are
    /// known (``PersistentStoreOptions/modelBundleURL``, or the bundle the model was loaded from), the store
    /// is migrated in place by ``LightweightMigrator``; if not, the store is refused.
    ///
    /// - Throws: ``ObjectGraphError/incompatibleModel(path:entities:reason:)`` naming the entities whose hashes
    ///   differ, or the migrator's errors. The file is untouched in every case that throws.
    func migrateIfNeeded(storeAt url: URL, options: PersistentStoreOptions) throws(ObjectGraphError) {
        let path = url.path
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0,
            let metadata = try? SQLiteStore.readMetadata(path: path), !metadata.entityVersionHashes.isEmpty,
            metadata.entityVersionHashes != managedObjectModel.entityVersionHashes
        else { return }  // New, not a store (opening it says so), or compatible.
        if metadata.writer != .objectGraph {
            // Core Data's hashes are computed here only when the model came from a compiled .momd: a store whose
            // schema is the model's opens as it is; any other is migrated from the version of the bundle whose
            // hashes (compiled bundles) or schema (source bundles) it has, or refused, naming what differs.
            let compatibility = try PersistentStoreCoordinator.compatibility(ofStoreAt: url, with: managedObjectModel)
            guard case .incompatible(let reason) = compatibility else { return }
            let refusal = "it was \(metadata.writer), whose entity version hashes are not the model's, and its "
                + "schema differs: \(reason)"
            let bundleURL: URL
            do {
                bundleURL = try migrationBundleURL(options: options) { ObjectGraphError.incompatibleStore(path: path, reason: $0) }
            } catch {
                throw .incompatibleStore(path: path, reason: refusal)
            }
            let bundle: ModelBundle
            do throws(ModelLoadError) {
                bundle = try ModelBundle(contentsOf: bundleURL)
            } catch {
                throw .incompatibleStore(path: path, reason: refusal + " (the model bundle cannot be read: \(error))")
            }
            do {
                try LightweightMigrator(bundle: bundle, destination: managedObjectModel).migrate(storeAt: url)
            } catch {
                if case .incompatibleModel = error {
                    throw .incompatibleStore(path: path, reason: refusal + "; and no version of "
                        + "\(bundle.url.lastPathComponent) has its hashes or its schema, so it cannot be migrated")
                }
                throw error
            }
            return
        }
        let entities = LightweightMigrator.differing(metadata.entityVersionHashes, managedObjectModel)
        func refuse(_ reason: String) -> ObjectGraphError {
            .incompatibleModel(path: path, entities: entities, reason: reason)
        }
        let bundleURL = try migrationBundleURL(options: options, refuse: refuse)
        let bundle: ModelBundle
        do throws(ModelLoadError) {
            bundle = try ModelBundle(contentsOf: bundleURL)
        } catch {
            throw refuse("the model bundle cannot be read (\(error))")
        }
        try LightweightMigrator(bundle: bundle, destination: managedObjectModel).migrate(storeAt: url)
    }

    /// The model bundle whose versions a migration reads, once `options` allow migrating at all; otherwise
    /// the error `refuse` makes of the reason.
    func migrationBundleURL(options: PersistentStoreOptions, refuse: (String) -> ObjectGraphError)
        throws(ObjectGraphError) -> URL
    {
        try Self.migrationBundleURL(model: managedObjectModel, options: options, refuse: refuse)
    }

    /// The model bundle whose versions a migration of a store (of any type) to `model` reads, when `options` allow
    /// migrating at all (read-write, ``PersistentStoreOptions/migratesAutomatically`` and
    /// ``PersistentStoreOptions/infersMappingModel``); otherwise the error `refuse` makes of the reason.
    @_spi(StoreImplementation)
    public static func migrationBundleURL(
        model: ManagedObjectModel, options: PersistentStoreOptions, refuse: (String) -> ObjectGraphError
    ) throws(ObjectGraphError) -> URL {
        guard !options.isReadOnly else { throw refuse("the store is opened read-only, so it cannot be migrated") }
        guard options.migratesAutomatically else { throw refuse("automatic migration is off (migratesAutomatically)") }
        guard options.infersMappingModel else {
            throw refuse("inferring the mapping is off (infersMappingModel) and mapping models are not supported")
        }
        guard let bundleURL = options.modelBundleURL ?? model.bundleURL else {
            throw refuse("the model's earlier versions are unknown (load it from its .xcdatamodeld bundle, or set "
                + "PersistentStoreOptions.modelBundleURL), so the store cannot be migrated")
        }
        return bundleURL
    }
}

import Foundation
import Synchronization

/// Connects contexts to stores: it owns the model and the stores, routes fetches and saves, keeps a cache of
/// saved rows, and tells every interested context when one of them saved.
///
/// The counterpart of Core Data's `NSPersistentStoreCoordinator`. It is safe to use from any queue.
///
/// For example, the usual stack:
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(ofType: .sqlite, at: storeURL)
/// let mainContext = ManagedObjectContext(concurrencyType: .mainQueue)
/// mainContext.persistentStoreCoordinator = coordinator
/// ```
///
/// A coordinator may have several stores. A new object is saved to the first store whose configuration holds
/// its entity (a store added without a configuration holds every entity), unless
/// ``ManagedObjectContext/assign(_:to:)`` chose another; an object with a permanent ID lives in the store its
/// ID names (``ManagedObjectID/storeIdentifier``). Fetches read every store that holds the entity and merge
/// the results (see ``FetchRequest/affectedStores``).
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// The model every store and context of this coordinator uses.
    public let managedObjectModel: ManagedObjectModel
    private let stores = Locked<[PersistentStore]>([])
    private let commitObservers = ObserverList<@Sendable (StoreCommitEvent) -> Void>()
    private let nextObserverID = Atomic<UInt64>(0)
    /// Saved rows by object ID, shared by every context of this coordinator (see ``rows(for:entity:)``).
    let rowCache = Locked(RowCache())
    /// How many rows ``rows(for:entity:)`` answered from the row cache, for tests and diagnostics.
    let rowCacheHits = Atomic<Int>(0)
    /// The store chosen for unsaved objects with ``ManagedObjectContext/assign(_:to:)``: store identifier by
    /// temporary ID, until the object's first save (or permanent ID) fixes it.
    let storeAssignments = Locked<[ManagedObjectID: String]>([:])
    /// The metadata of stores another process migrated to another model version while this coordinator held
    /// them, by store identifier (see ``storeMigratedElsewhere(_:)``).
    let migratedElsewhere = Locked<[String: StoreMetadata]>([:])

    /// Creates a coordinator for `model`, with no stores yet.
    public init(managedObjectModel model: ManagedObjectModel) {
        managedObjectModel = model
    }

    /// The stores added so far, in the order they were added (which is the order entities are routed in).
    public var persistentStores: [PersistentStore] { stores.withLock { $0 } }

    /// The most rows the coordinator's row cache keeps (10,000 by default); the least recently used go first
    /// when it is full. Lower it when rows are large, raise it when a working set of more rows is re-read often.
    public var rowCacheCapacity: Int {
        get { rowCache.withLock { $0.capacity } }
        set { rowCache.withLock { $0.capacity = newValue } }
    }

    /// Adds a store holding every entity, creating its file (and parent folder) when it does not exist.
    ///
    /// - Parameters:
    ///   - type: `.sqlite` or `.atomic` (both need `url`), or `.inMemory`.
    ///   - url: the store file for `.sqlite` and `.atomic`.
    /// - Returns: the added store.
    /// - Throws: ``ObjectGraphError`` when the file cannot be opened, is not a store, or does not fit the model.
    @discardableResult
    public func addPersistentStore(ofType type: PersistentStoreType, at url: URL? = nil) throws(ObjectGraphError)
        -> PersistentStore
    {
        try addPersistentStore(ofType: type, configurationName: nil, at: url, options: PersistentStoreOptions())
    }

    /// Adds a store for the entities of one model configuration, with options: Core Data's
    /// `addPersistentStore(ofType:configurationName:at:options:)`.
    ///
    /// - Parameters:
    ///   - type: `.sqlite` or `.atomic` (both need `url`), or `.inMemory`.
    ///   - configurationName: the configuration whose entities the store holds; nil (or `"Default"` when the
    ///     model has no configuration of that name) for every entity. An SQLite file always gets every
    ///     entity's table, so the same file can later be added with another configuration.
    ///   - url: the store file for `.sqlite` and `.atomic`; created (with its folder) unless the store is read-only.
    ///   - options: read-only and SQLite pragmas.
    /// - Returns: the added store.
    ///
    /// Opening an SQLite file may take long: a lightweight migration copies every table, and a text search index
    /// the model asks for is built over every row. Both report through Foundation's `Progress`: make a progress
    /// current on the calling thread (`progress.becomeCurrent(withPendingUnitCount:)`) around this call, and its
    /// `fractionCompleted` follows the work range by range (`people` shows it while its store opens).
    ///
    /// - Throws: ``ObjectGraphError/unknownConfiguration(_:)``, ``ObjectGraphError/storeAlreadyAdded(path:)``,
    ///   ``ObjectGraphError/invalidStoreOption(name:reason:)``, or an error opening the store.
    @discardableResult
    public func addPersistentStore(
        ofType type: PersistentStoreType, configurationName: String?, at url: URL?, options: PersistentStoreOptions
    ) throws(ObjectGraphError) -> PersistentStore {
        // Taken first, before any Foundation call that makes a progress of its own could take the caller's
        // pending units: opening may migrate the file and build text indexes, half each (a part with nothing to
        // do counts as done at once).
        let openingProgress = Progress.current() != nil ? Progress(totalUnitCount: StoreOpeningProgress.units) : nil
        let opening = openingProgress.map(StoreOpeningProgress.init)
        defer { opening?.report(1) }
        let entityNames = try entityNames(ofConfiguration: configurationName)
        let store: PersistentStore
        switch type {
        case .inMemory:
            let identifier = UUID().uuidString
            _ = try options.validatedPragmas()
            store = PersistentStore(type: type, url: nil, identifier: identifier,
                metadata: StoreMetadata(storeType: type.rawValue, storeUUID: identifier,
                    entityVersionHashes: managedObjectModel.entityVersionHashes,
                    versionIdentifiers: managedObjectModel.versionIdentifiers.sorted()),
                backend: InMemoryStore(identifier: identifier, model: managedObjectModel, isReadOnly: options.isReadOnly),
                configurationName: configurationName, entityNames: entityNames, options: options)
        case .sqlite:
            guard let url else { throw .notAnObjectGraphStore(path: "(none)", reason: "an SQLite store needs a file URL") }
            if let existing = persistentStore(for: url) { throw .storeAlreadyAdded(path: existing.url?.path ?? url.path) }
            if !options.isReadOnly {
                do {
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw .notAnObjectGraphStore(path: url.path, reason: "its folder cannot be created (\(error))")
                }
            }
            let parts = opening?.slices([1, 1])
            try StoreOpeningProgress.run(parts?[0]) { () throws(ObjectGraphError) in
                try migrateIfNeeded(storeAt: url, options: options)
            }
            let backend = try StoreOpeningProgress.run(parts?[1]) { () throws(ObjectGraphError) in
                try SQLiteStore(path: url.path, model: managedObjectModel, options: options)
            }
            let metadata = backend.metadata ?? StoreMetadata(storeType: type.rawValue, storeUUID: backend.identifier,
                entityVersionHashes: managedObjectModel.entityVersionHashes)
            store = PersistentStore(type: type, url: url, identifier: backend.identifier, metadata: metadata,
                backend: backend, configurationName: configurationName, entityNames: entityNames, options: options)
        case .atomic:
            guard let url else { throw .notAnObjectGraphStore(path: "(none)", reason: "an atomic store needs a file URL") }
            if let existing = persistentStore(for: url) { throw .storeAlreadyAdded(path: existing.url?.path ?? url.path) }
            store = try makeAtomicStore(at: url, configurationName: configurationName, entityNames: entityNames,
                options: options)
        default:
            store = try StoreOpeningProgress.run(opening) { () throws(ObjectGraphError) in
                try openRegisteredStore(ofType: type, configurationName: configurationName, at: url,
                    options: options, entityNames: entityNames)
            }
        }
        let added: Bool = stores.withLock { stores in
            // Checked again under the lock: two threads may have opened the same file at once.
            guard !stores.contains(where: { $0.identifier == store.identifier }) else { return false }
            stores.append(store)
            return true
        }
        guard added else { throw .storeAlreadyAdded(path: url.map { _ in store.displayName } ?? store.identifier) }
        do {
            try startWatchingForRemoteChanges(store)
        } catch {
            stores.withLock { stores in stores.removeAll { $0 === store } }
            throw error
        }
        return store
    }

    /// The added store whose file is `url` (compared after resolving `.`/`..` and symbolic links), as Core
    /// Data's `persistentStore(for:)`.
    public func persistentStore(for url: URL) -> PersistentStore? {
        let wanted = url.standardizedFileURL.resolvingSymlinksInPath().path
        return stores.withLock { stores in
            stores.first { $0.url?.standardizedFileURL.resolvingSymlinksInPath().path == wanted }
        }
    }

    /// Removes a store from the coordinator, as Core Data's `remove(_:)`: its entities are no longer routed
    /// to it, IDs naming it no longer resolve, and its rows leave the row cache. The file is left as it is.
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` when the store is not one of this coordinator's.
    public func remove(_ store: PersistentStore) throws(ObjectGraphError) {
        let removed: Bool = stores.withLock { stores in
            guard let index = stores.firstIndex(where: { $0 === store }) else { return false }
            stores.remove(at: index)
            return true
        }
        guard removed else { throw .unknownStore(identifier: store.identifier) }
        stopWatchingForRemoteChanges(store)
        rowCache.withLock { $0.removeAll(inStore: store.identifier) }
    }

    /// Puts `replacement` in the place of `store`, at the same position in the routing order, in one step, so
    /// that no fetch or save meets the coordinator with neither (what migrating a store does), and drops
    /// `store`'s rows from the row cache.
    ///
    /// - Returns: false when `store` is not one of this coordinator's stores, or another store has
    ///   `replacement`'s identifier.
    func exchange(_ store: PersistentStore, for replacement: PersistentStore) -> Bool {
        let exchanged: Bool = stores.withLock { stores in
            guard let index = stores.firstIndex(where: { $0 === store }),
                !stores.contains(where: { $0 !== store && $0.identifier == replacement.identifier })
            else { return false }
            stores[index] = replacement
            return true
        }
        if exchanged {
            stopWatchingForRemoteChanges(store)
            rowCache.withLock { $0.removeAll(inStore: store.identifier) }
            // (A replacement that was never added gets its watcher here.)
            if (replacement.backend as? SQLiteStore)?.changeWatcher.withLock({ $0 == nil }) == true {
                try? startWatchingForRemoteChanges(replacement)
            }
        }
        return exchanged
    }

    /// The entity names a configuration holds; nil for every entity.
    private func entityNames(ofConfiguration name: String?) throws(ObjectGraphError) -> Set<String>? {
        guard let name else { return nil }
        if let configuration = managedObjectModel.configuration(named: name) { return Set(configuration.entityNames) }
        // Core Data's name for "no configuration" (PF_DEFAULT_CONFIGURATION_NAME).
        if name == "Default" { return nil }
        throw .unknownConfiguration(name)
    }

    /// The store that holds objects of `entity`: the first store whose configuration includes it.
    ///
    /// - Throws: ``ObjectGraphError/noPersistentStore`` without stores, ``ObjectGraphError/noStoreForEntity(_:)``
    ///   when no store's configuration includes the entity.
    func store(for entity: EntityDescription) throws(ObjectGraphError) -> PersistentStore {
        let all = persistentStores
        guard !all.isEmpty else { throw .noPersistentStore }
        guard let store = all.first(where: { $0.holdsEntity(named: entity.name) }) else {
            throw .noStoreForEntity(entity.name)
        }
        return store
    }

    /// The store that holds the object `objectID`: the one its permanent ID names, or for a temporary ID the
    /// store it was assigned to or else the store its entity is routed to (where it will be saved).
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` for a store that is not (or no longer) added,
    ///   ``ObjectGraphError/unknownEntity(_:)``, or the routing errors of the entity form.
    func store(for objectID: ManagedObjectID) throws(ObjectGraphError) -> PersistentStore {
        guard !objectID.isTemporaryID else {
            if let assigned = storeAssignments.withLock({ $0[objectID] }) {
                guard let store = stores.withLock({ $0.first { $0.identifier == assigned } }) else {
                    throw .unknownStore(identifier: assigned)
                }
                return store
            }
            guard let entity = managedObjectModel.entity(named: objectID.entityName) else {
                throw .unknownEntity(objectID.entityName)
            }
            return try store(for: entity)
        }
        let identifier = objectID.storeIdentifier
        guard let store = stores.withLock({ $0.first { $0.identifier == identifier } }) else {
            throw .unknownStore(identifier: identifier)
        }
        return store
    }

    /// Registers `handler` to hear about every committed transaction of this coordinator's stores — its
    /// contexts' saves, batch requests and migrations, and (with ``PersistentStoreOptions/remoteChangeNotifications``
    /// and ``PersistentStoreOptions/persistentHistoryTracking`` on) other coordinators' and processes' commits.
    ///
    /// The handler runs on the queue that committed (the saving context's, the batch request's caller's) or, for
    /// other writers' commits, on the store's watcher queue: hop to your own queue before touching objects.
    /// Events of one store arrive in commit order. The coordinator's row cache has already taken each event
    /// into account when handlers hear of it.
    public func addCommitObserver(_ handler: @escaping @Sendable (StoreCommitEvent) -> Void) -> ObservationToken {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        commitObservers.add(id, handler)
        return ObservationToken { [weak self] in self?.commitObservers.remove(id) }
    }

    /// Sends a committed transaction to the row cache, then to every commit observer, in registration order.
    func emit(_ event: StoreCommitEvent) {
        rowCache.withLock { $0.apply(event) }
        let handlers = commitObservers.handlers
        for handler in handlers { handler(event) }
    }
}

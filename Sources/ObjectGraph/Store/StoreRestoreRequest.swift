import Foundation

/// Everything one store holds, handed to a registered store type to fill a new store of its type with: what
/// ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)`` to a registered type (a PostgreSQL
/// database, say) copies. Rows keep their keys and versions and the new store keeps the source's UUID, so object
/// IDs stay valid.
///
/// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`); not a stable public API.
@_spi(StoreImplementation)
public struct StoreRestoreRequest: Sendable {
    /// Where the new store goes (a server URL such as `postgresql://host/db`).
    public var url: URL
    /// The coordinator's model, which the rows fit.
    public var model: ManagedObjectModel
    /// The options the new store is opened with.
    public var options: PersistentStoreOptions
    /// The source store's UUID, which the new store keeps.
    public var storeIdentifier: String
    /// Every row, each under its concrete entity, with its key, version, values (external ones read in) and to-one
    /// destinations.
    public var rows: [RowSnapshot]
    /// The to-many memberships as a ``StoreReplica`` keeps them: `Entity.relationship#pk` lists of many-to-many and
    /// inverse-less relationships, and `…#order` lists giving ordered relationships' order.
    public var lists: [String: [ManagedObjectID]]
    /// The highest key used or reserved in each hierarchy, by root entity name: the new store hands out keys after
    /// it.
    public var primaryKeyMaxima: [String: Int64]
    /// The app's metadata keys (``StoreMetadata/userInfo``).
    public var userInfo: [String: MetadataValue]
    /// Whether a store already at ``url`` is replaced (else its presence is
    /// ``ObjectGraphError/destinationExists(path:)``).
    public var replacesExisting: Bool
}

/// The restorers of registered store types, by raw value.
enum StoreRestorerRegistry {
    typealias Restorer = @Sendable (StoreRestoreRequest) throws(ObjectGraphError) -> Void
    static let restorers = Locked<[String: Restorer]>([:])
}

extension PersistentStoreCoordinator {
    /// Lets ``migratePersistentStore(_:to:options:type:)`` make stores of the registered `type`: `restorer` fills the
    /// store at the request's URL with another store's contents, all or nothing (the coordinator then opens it with
    /// the type's opener).
    ///
    /// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`).
    @_spi(StoreImplementation)
    public static func registerStoreRestorer(
        _ type: PersistentStoreType,
        restorer: @escaping @Sendable (StoreRestoreRequest) throws(ObjectGraphError) -> Void
    ) {
        guard ![PersistentStoreType.sqlite, .inMemory, .atomic].contains(type) else { return }
        StoreRestorerRegistry.restorers.withLock { $0[type.rawValue] = restorer }
    }

    /// The restorer registered for `type`, if any.
    static func storeRestorer(for type: PersistentStoreType) -> StoreRestorerRegistry.Restorer? {
        StoreRestorerRegistry.restorers.withLock { $0[type.rawValue] }
    }

    /// Everything `store` (one of this coordinator's) holds, read as one pass over its rows, as a request to fill
    /// the store at `url` with it.
    ///
    /// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`).
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` when `store` is not added here; the store's read
    ///   errors.
    @_spi(StoreImplementation)
    public func restoreRequest(copying store: PersistentStore, to url: URL, options: PersistentStoreOptions,
        replacingExisting: Bool) throws(ObjectGraphError) -> StoreRestoreRequest
    {
        guard persistentStores.contains(where: { $0 === store }) else { throw .unknownStore(identifier: store.identifier) }
        let contents = try StoreContents.read(from: store, model: managedObjectModel)
        // The lists as a replica keeps them: an in-memory store loaded with the contents holds exactly those.
        let memory = InMemoryStore(identifier: store.identifier, model: managedObjectModel)
        memory.load(contents)
        let lists = memory.state.withLock { $0.joins }.filter { !$0.value.isEmpty }
        return StoreRestoreRequest(url: url, model: managedObjectModel, options: options,
            storeIdentifier: store.identifier, rows: contents.rows, lists: lists,
            primaryKeyMaxima: contents.primaryKeyMaxima, userInfo: contents.userInfo,
            replacesExisting: replacingExisting)
    }

    /// ``migratePersistentStore(_:to:options:type:)`` to a registered type with a restorer: the new store is filled
    /// (a store already at `url` is refused) and opened with the type's opener.
    func makeRestoredStore(from store: PersistentStore, type: PersistentStoreType, at url: URL,
        options: PersistentStoreOptions, restorer: StoreRestorerRegistry.Restorer) throws(ObjectGraphError)
        -> PersistentStore
    {
        try restorer(try restoreRequest(copying: store, to: url, options: options, replacingExisting: false))
        return try openRegisteredStore(ofType: type, configurationName: store.configurationName, at: url,
            options: options, entityNames: store.entityNames)
    }
}

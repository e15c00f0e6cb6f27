import Foundation

/// What a registered store type's opener is given (see ``PersistentStoreCoordinator/registerStoreType(_:opener:)``).
public struct StoreOpenRequest: Sendable {
    /// The store's location (a file URL, or a server URL such as `postgresql://host/db`); nil when none was given.
    public var url: URL?
    /// The coordinator's model: the store's rows must fit it.
    public var model: ManagedObjectModel
    /// The options the store is added with.
    public var options: PersistentStoreOptions
    /// The configuration whose entities the store will hold; nil for every entity.
    public var configurationName: String?
    /// Where ``reportProgress(_:)`` goes: the opening's share of the progress the caller of `addPersistentStore`
    /// follows; nil when nobody follows it.
    var progress: StoreOpeningProgress?

    /// Creates a request to open the store at `url` for `model`.
    public init(url: URL?, model: ManagedObjectModel, options: PersistentStoreOptions, configurationName: String?) {
        self.url = url
        self.model = model
        self.options = options
        self.configurationName = configurationName
    }

    /// Whether somebody follows the opening through Foundation's `Progress` (the caller of
    /// ``PersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)`` made one current):
    /// a store that reads a lot at open (a replica of a server's rows) can then read it in parts and report them.
    public var isProgressFollowed: Bool { progress != nil }

    /// Reports that `fractionCompleted` (0…1) of the opening is done, to whoever follows it; nothing when nobody
    /// does. Reports never make the progress go back.
    public func reportProgress(_ fractionCompleted: Double) {
        progress?.report(fractionCompleted)
    }
}

/// An opened third-party store and its metadata: ``StoreMetadata/storeUUID`` is the identifier its object IDs
/// name.
public struct OpenedStore: Sendable {
    /// The store.
    public var store: any IncrementalStore
    /// Its metadata.
    public var metadata: StoreMetadata

    /// An opened `store` with `metadata`.
    public init(store: any IncrementalStore, metadata: StoreMetadata) {
        self.store = store
        self.metadata = metadata
    }
}

/// The store types registered beyond the built-in ones, by raw value.
enum StoreTypeRegistry {
    typealias Opener = @Sendable (StoreOpenRequest) throws(ObjectGraphError) -> OpenedStore
    static let openers = Locked<[String: Opener]>([:])
}

extension PersistentStoreCoordinator {
    /// Registers a store type, so that ``addPersistentStore(ofType:configurationName:at:options:)`` (and
    /// descriptions, and containers) can add stores of it: Core Data's `registerStoreClass(_:type:)`. Registering
    /// a type again replaces its opener; the built-in types cannot be replaced.
    ///
    /// - Parameters:
    ///   - type: the type's name.
    ///   - opener: opens (creating when needed) the store described by its argument; called on the thread that adds
    ///     the store. Its errors reach the caller of `addPersistentStore` unchanged.
    public static func registerStoreType(
        _ type: PersistentStoreType, opener: @escaping @Sendable (StoreOpenRequest) throws(ObjectGraphError) -> OpenedStore
    ) {
        guard ![PersistentStoreType.sqlite, .inMemory, .atomic].contains(type) else { return }
        StoreTypeRegistry.openers.withLock { $0[type.rawValue] = opener }
    }

    /// The store types registered with ``registerStoreType(_:opener:)``.
    public static var registeredStoreTypes: [PersistentStoreType] {
        StoreTypeRegistry.openers.withLock { $0.keys.sorted().map(PersistentStoreType.init(rawValue:)) }
    }

    /// Opens a store of a registered type.
    func openRegisteredStore(
        ofType type: PersistentStoreType, configurationName: String?, at url: URL?, options: PersistentStoreOptions,
        entityNames: Set<String>?
    ) throws(ObjectGraphError) -> PersistentStore {
        guard let opener = StoreTypeRegistry.openers.withLock({ $0[type.rawValue] }) else {
            throw .unsupportedStoreOperation(
                "no store type '\(type.rawValue)' is registered (link its module and call its registration first)")
        }
        if let url, let existing = persistentStore(for: url) { throw .storeAlreadyAdded(path: existing.displayName) }
        var request = StoreOpenRequest(url: url, model: managedObjectModel, options: options,
            configurationName: configurationName)
        request.progress = StoreOpeningProgress.current
        let opened = try opener(request)
        return PersistentStore(type: type, url: url, identifier: opened.metadata.storeUUID, metadata: opened.metadata,
            backend: ForeignStoreBackend(opened.store), configurationName: configurationName, entityNames: entityNames,
            options: options)
    }
}

/// Store locations that are not files.
public enum StoreURL {
    /// `url` as it may be shown or logged: a password in it replaced with `***`, and query parameters named
    /// `password` too (libpq connection URIs allow both).
    public static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a store URL)" }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                item.name.lowercased() == "password" ? URLQueryItem(name: item.name, value: "***") : item
            }
        }
        return components.string ?? "(a store URL)"
    }
}

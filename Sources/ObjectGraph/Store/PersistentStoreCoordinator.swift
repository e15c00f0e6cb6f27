import Foundation
import Synchronization

/// Connects contexts to stores: it owns the model and the stores, routes fetches and saves, and tells
/// every interested context when one of them saved.
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
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// The model every store and context of this coordinator uses.
    public let managedObjectModel: ManagedObjectModel
    private let stores = Mutex<[PersistentStore]>([])
    private let saveObservers = Mutex<[UInt64: @Sendable (ContextDidSave) -> Void]>([:])
    private let nextObserverID = Atomic<UInt64>(0)

    /// Creates a coordinator for `model`, with no stores yet.
    public init(managedObjectModel model: ManagedObjectModel) {
        managedObjectModel = model
    }

    /// The stores added so far.
    public var persistentStores: [PersistentStore] { stores.withLock { $0 } }

    /// Adds a store, creating its file (and parent folder) when it does not exist.
    ///
    /// - Parameters:
    ///   - type: `.sqlite` (needs `url`) or `.inMemory`.
    ///   - url: the store file for `.sqlite`.
    /// - Returns: the added store.
    /// - Throws: ``ObjectGraphError`` when the file cannot be opened, is not a store, or does not fit the model.
    @discardableResult
    public func addPersistentStore(ofType type: PersistentStoreType, at url: URL? = nil) throws(ObjectGraphError)
        -> PersistentStore
    {
        let store: PersistentStore
        switch type {
        case .inMemory:
            let identifier = UUID().uuidString
            store = PersistentStore(type: type, url: nil, identifier: identifier,
                metadata: StoreMetadata(storeType: type.rawValue, storeUUID: identifier,
                    entityVersionHashes: managedObjectModel.entityVersionHashes,
                    versionIdentifiers: managedObjectModel.versionIdentifiers.sorted()),
                backend: InMemoryStore(identifier: identifier, model: managedObjectModel))
        case .sqlite:
            guard let url else { throw .notAnObjectGraphStore(path: "(none)", reason: "an SQLite store needs a file URL") }
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .notAnObjectGraphStore(path: url.path, reason: "its folder cannot be created (\(error))")
            }
            let backend = try SQLiteStore(path: url.path, model: managedObjectModel)
            let metadata = backend.metadata ?? StoreMetadata(storeType: type.rawValue, storeUUID: backend.identifier,
                entityVersionHashes: managedObjectModel.entityVersionHashes)
            store = PersistentStore(type: type, url: url, identifier: backend.identifier, metadata: metadata,
                backend: backend)
        }
        stores.withLock { $0.append(store) }
        return store
    }

    /// Reads the metadata of the SQLite store at `url` without opening it for use (Core Data's
    /// `metadataForPersistentStore(ofType:at:)`): check `entityVersionHashes` against a model before adding it.
    public static func metadataForPersistentStore(at url: URL) throws(ObjectGraphError) -> StoreMetadata {
        try SQLiteStore.readMetadata(path: url.path)
    }

    /// The store that holds objects of `entity` (the first store; configurations come later).
    func store(for entity: EntityDescription) throws(ObjectGraphError) -> PersistentStore {
        guard let store = stores.withLock({ $0.first }) else { throw .noPersistentStore }
        return store
    }

    /// Registers `handler` to hear about every save of any context attached to this coordinator.
    func addSaveObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> ObservationToken {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        saveObservers.withLock { $0[id] = handler }
        return ObservationToken { [weak self] in _ = self?.saveObservers.withLock { $0.removeValue(forKey: id) } }
    }

    /// Tells every save observer about a completed save (on the saving context's queue).
    func broadcast(_ save: ContextDidSave) {
        let handlers = saveObservers.withLock { Array($0.values) }
        for handler in handlers { handler(save) }
    }
}

import Foundation
import Synchronization

/// The whole Core Data stack in one object: a model, a coordinator, its stores, a main-queue context for
/// the user interface and background contexts for work — the counterpart of Core Data's
/// `NSPersistentContainer`.
///
/// ```swift
/// let container = try PersistentContainer(name: "People", contentsOf: modelURL)
/// try await container.loadPersistentStores()
/// let people = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
/// try await container.performBackgroundTask { context in
///     let person = try context.insertNewObject(forEntityName: "Person")
///     person["lastName"] = "Lovelace"
///     try context.save()   // the view context merges this automatically
/// }
/// ```
///
/// Until ``loadPersistentStores(completionHandler:)`` runs, ``persistentStoreDescriptions`` can be changed:
/// by default it describes one SQLite store named after the container in ``defaultDirectoryURL()``.
open class PersistentContainer: @unchecked Sendable {
    /// The container's name, which names the default store file (`<name>.sqlite`).
    public let name: String
    /// The model of every store and context.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator that owns the stores.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context for the user interface, named "viewContext". It merges every save of the
    /// container's other contexts automatically (``ManagedObjectContext/automaticallyMergesChangesFromParent``).
    public let viewContext: ManagedObjectContext
    private let descriptions: Locked<[PersistentStoreDescription]>

    /// Creates a container for `model`, with one default SQLite store description (nothing is opened yet).
    public init(name: String, managedObjectModel model: ManagedObjectModel) {
        self.name = name
        managedObjectModel = model
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
        descriptions = Locked([PersistentStoreDescription(
            url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))])
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "viewContext"
        viewContext.automaticallyMergesChangesFromParent = true
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
    }

    /// Creates a container for the model in an Xcode model file (`.xcdatamodeld` bundle, whose current
    /// version is loaded, or `.xcdatamodel` folder); `classes` are the ``ManagedObject`` subclasses to match
    /// to its entities.
    ///
    /// - Throws: ``ModelLoadError`` naming the file, line and column of anything wrong with the model.
    public convenience init(name: String, contentsOf modelURL: URL, classes: [ManagedObject.Type] = [])
        throws(ModelLoadError)
    {
        self.init(name: name, managedObjectModel: try ManagedObjectModel.load(contentsOf: modelURL, classes: classes))
    }

    /// Where default stores go: `$XDG_DATA_HOME` when it is set to an absolute path (the XDG base directory
    /// rule), otherwise `~/.local/share` — Linux's counterpart of the Application Support folder that Core
    /// Data uses. Override it in a subclass to keep stores elsewhere; the folder is created when a store is
    /// first added.
    open class func defaultDirectoryURL() -> URL {
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local", isDirectory: true)
            .appendingPathComponent("share", isDirectory: true)
    }

    /// The stores ``loadPersistentStores(completionHandler:)`` adds, in order. Change them before loading
    /// (for example to set a URL, a configuration, read-only, or `shouldAddStoreAsynchronously`).
    public var persistentStoreDescriptions: [PersistentStoreDescription] {
        get { descriptions.withLock { $0 } }
        set { descriptions.withLock { $0 = newValue } }
    }

    /// Adds a store for each of ``persistentStoreDescriptions``, calling `completionHandler` once per
    /// description with nil or the error. Descriptions with `shouldAddStoreAsynchronously` are opened on a
    /// background queue and their handler called there; the others before this method returns.
    public func loadPersistentStores(
        completionHandler: @escaping @Sendable (PersistentStoreDescription, ObjectGraphError?) -> Void
    ) {
        for description in persistentStoreDescriptions {
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: completionHandler)
        }
    }

    /// Adds a store for each of ``persistentStoreDescriptions`` in turn, off the caller's thread.
    ///
    /// - Returns: the added stores.
    /// - Throws: the first description's error; stores added before it stay added.
    @discardableResult
    public func loadPersistentStores() async throws(ObjectGraphError) -> [PersistentStore] {
        var stores: [PersistentStore] = []
        for description in persistentStoreDescriptions {
            stores.append(try await persistentStoreCoordinator.addPersistentStore(with: description))
        }
        return stores
    }

    /// A new private-queue context on the coordinator, for work off the main queue. It does not merge other
    /// contexts' saves unless asked to.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new background context's queue (a fresh context per call), without waiting.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new background context's queue and returns its result to the awaiting task.
    ///
    /// - Throws: whatever `block` throws.
    public func performBackgroundTask<T: Sendable>(
        _ block: @escaping @Sendable (ManagedObjectContext) throws -> T
    ) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}

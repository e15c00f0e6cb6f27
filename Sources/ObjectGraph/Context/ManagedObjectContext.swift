import Foundation
import Synchronization

/// A scratchpad of managed objects, confined to one queue: the counterpart of Core Data's
/// `NSManagedObjectContext`.
///
/// A `.mainQueue` context runs on the main dispatch queue (the app's UI thread); a `.privateQueue` context
/// has its own serial queue. Use a context only inside ``perform(_:)->()`` or ``performAndWait(_:)`` (a
/// main-queue context also directly from the main queue). Set `OBJECTGRAPH_CONCURRENCY_DEBUG=1` in the
/// environment to trap on any use from the wrong queue, like Core Data's concurrency debug flag.
///
/// Changes made in a context are private to it until ``save()``, which writes them to the store in one
/// transaction and tells observers with a ``ContextDidSave``; other contexts merge that with
/// ``mergeChanges(fromContextDidSave:)-(ContextDidSave)`` or automatically (``automaticallyMergesChangesFromParent``).
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// Which queue a context is confined to.
    public enum ConcurrencyType: Sendable, Hashable {
        /// The main dispatch queue, shared with the user interface.
        case mainQueue
        /// A private serial queue owned by the context.
        case privateQueue
    }

    /// The queue kind this context was created with.
    public let concurrencyType: ConcurrencyType
    /// A name for debugging and for save notifications.
    public var name: String?
    /// The coordinator whose stores this context reads and saves. Set it (or ``parent``) before first use;
    /// a child context reports its parent's coordinator.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { parent?.persistentStoreCoordinator ?? attachedCoordinator }
        set {
            attachedCoordinator = newValue
            updateAutomaticMerging()
        }
    }
    /// The context this one reads through and saves into, making it a *child* context (Core Data's
    /// `parent`). A child's ``save()`` pushes its changes into the parent's objects and touches no disk;
    /// its fetches see the parent's unsaved state. Set either this or ``persistentStoreCoordinator``.
    public var parent: ManagedObjectContext? {
        didSet {
            precondition(parent !== self, "A context cannot be its own parent.")
            parent?.isParentOfChildren.store(true, ordering: .relaxed)
            parent?.registerChild(self)
            updateAutomaticMerging()
        }
    }
    /// Whether saves that reach this context's parent store are merged into it automatically, on this
    /// context's queue, coalescing saves that arrive faster than they can be merged. For a context on a
    /// coordinator: the committed transactions of its coordinator (``StoreCommitEvent``) but its own saves —
    /// other contexts' saves and batch requests (other coordinators' and processes' commits follow
    /// ``automaticallyMergesRemoteChanges``). For a child context: the parent's own saves and the saves its other
    /// children push into it.
    public var automaticallyMergesChangesFromParent = false {
        didSet { updateAutomaticMerging() }
    }
    /// Whether this context merges the commits of other coordinators and other processes that its store's
    /// watcher reads from the persistent history (stores added with ``PersistentStoreOptions/remoteChangeNotifications``
    /// and ``PersistentStoreOptions/persistentHistoryTracking``), on its queue, each transaction whole — so a
    /// fetched-results controller reports another process's import exactly as it reports a save of this process.
    /// A context on a coordinator hears of them from the store; a child context once its parent has merged
    /// them. On by default, whether or not ``automaticallyMergesChangesFromParent`` is (Core Data leaves such
    /// merging to the app). Turn it off for a context that must not change under its user's feet.
    public var automaticallyMergesRemoteChanges = true {
        didSet { updateAutomaticMerging() }
    }
    /// Who is saving, recorded with each transaction in the persistent history (Core Data's
    /// `transactionAuthor`): set it before saving (for example `"importer"`) so that history readers can tell
    /// writers apart; it stays set for later saves until changed.
    public var transactionAuthor: String?
    /// The last error met while firing a fault (a failed read of the store): the object stayed a fault, with
    /// default values, and is read again on its next use. Core Data raises an exception there; a failed read is
    /// never taken for a deleted row. Reset it to nil once handled.
    public var lastFaultError: ObjectGraphError?
    /// How a save resolves conflicts with changes other contexts saved meanwhile; `.error` by default.
    public var mergePolicy: MergePolicy = .error

    private var attachedCoordinator: PersistentStoreCoordinator?
    /// Set once a child context names this one as its parent: temporary IDs this context re-keys are then
    /// remembered, so the child can still look objects up by the IDs it knows.
    let isParentOfChildren = Atomic<Bool>(false)
    /// Temporary IDs that became permanent (by this context's save or a merged one), for lookups by children
    /// that have not caught up yet and by the old IDs of objects still registered here.
    var temporaryIDs = TemporaryIDMemory()
    /// Counts changes of registered objects' IDs (temporary to permanent), so that fetched-results
    /// controllers notice saves without being told.
    var objectIDGeneration = 0
    /// Permanent IDs handed down by the parent, not yet adopted on this context's queue.
    let pendingPermanentIDs = Locked(PendingPermanentIDs())
    /// The parent's newest generation of permanent IDs this context has adopted: the parent may forget
    /// temporary IDs of that generation and before once every child has adopted it.
    let adoptedParentGeneration = Atomic<Int>(0)
    /// This context's children, which follow the permanent IDs its objects get.
    let children = Locked(ChildContexts())
    /// Counts this child context's reads that an ancestor answered from its unsaved changes: a read across which
    /// it did not move saw only what the stores hold (a fetched-results controller may then cache its results).
    let readsOfUnsavedAncestorState = Atomic<Int>(0)

    let queue: DispatchQueue
    private let serial: Int

    // Confined state (touched only on `queue`).
    // Unchecked in release builds: see ``ManagedObject/storage``.
    #if DEBUG
    /// Every registered object by ID (Core Data's uniquing table): at most one object per ID per context.
    var registry: [ManagedObjectID: ManagedObject] = [:]
    var insertedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    var updatedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    var deletedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    var pending = PendingChanges()
    #else
    /// Every registered object by ID (Core Data's uniquing table): at most one object per ID per context.
    @exclusivity(unchecked) var registry: [ManagedObjectID: ManagedObject] = [:]
    @exclusivity(unchecked) var insertedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    @exclusivity(unchecked) var updatedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    @exclusivity(unchecked) var deletedObjectsByIdentity: [ObjectIdentifier: ManagedObject] = [:]
    @exclusivity(unchecked) var pending = PendingChanges()
    #endif
    // Read on every `setValue`, and only ever assigned whole (never passed inout or mutated in place), so
    // no access to them can overlap another: the run-time exclusivity check is skipped in every build.
    @exclusivity(unchecked) var isProcessingScheduled = false
    /// Records changes for undo and redo when set; nil (no recording) by default, as on iOS. Set it and use
    /// it on the context's queue. See ``ContextUndoManager``.
    @exclusivity(unchecked) public var undoManager: ContextUndoManager? {
        didSet { undoManagerDidChange(from: oldValue) }
    }

    private let objectsDidChangeObservers =
        ObserverList<(handler: (ObjectsDidChange) -> Void, followsObjectIDs: Bool)>()
    private let didSaveObservers = ObserverList<@Sendable (ContextDidSave) -> Void>()
    private let willSaveObservers = ObserverList<() -> Void>()
    /// Told about saves that reached this context as a parent store: its own saves and its children's pushes.
    private let parentStoreSaveObservers = ObserverList<@Sendable (ContextDidSave) -> Void>()
    /// Children that follow other writers' commits this context merged (see ``automaticallyMergesRemoteChanges``).
    private let remoteMergeObservers = ObserverList<@Sendable (ContextDidSave) -> Void>()
    /// The child's subscription to its parent's merges of other writers' commits.
    private var remoteMergeToken: ObservationToken?
    let nextObserverID = Atomic<UInt64>(0)
    private var automaticMergeToken: ObservationToken?
    let incomingSaves = Locked<(saves: [ContextDidSave], scheduled: Bool)>(([], false))

    /// Creates a context of the given concurrency type. Attach it to a coordinator before use.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        serial = Self.serials.add(1, ordering: .relaxed).newValue
        switch concurrencyType {
        case .mainQueue:
            queue = .main
            Self.markMainQueue
        case .privateQueue:
            queue = DispatchQueue(label: "ObjectGraph.ManagedObjectContext.\(serial)")
            queue.setSpecific(key: Self.queueKey, value: serial)
        }
    }

    deinit {
        emptyRegistry(keepingCapacity: false)
    }

    // MARK: - Queue confinement

    /// Runs `block` asynchronously on the context's queue, then processes pending changes (posting
    /// ``ObjectsDidChange`` if anything changed).
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            self.mergeAllQueuedSaves()
            block()
            self.processPendingChanges()
        }
    }

    /// Runs `block` on the context's queue and waits for it. Reentrant: called from the context's own
    /// queue, it runs `block` inline.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            return try block()
        }
        return try queue.sync {
            mergeAllQueuedSaves()
            let result = try block()
            processPendingChanges()
            return result
        }
    }

    /// Runs `block` on the context's queue and returns its result to the awaiting task.
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                self.mergeAllQueuedSaves()
                let result = Result { try block() }
                self.processPendingChanges()
                continuation.resume(with: result)
            }
        }
    }

    /// Whether the current code runs on this context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        // Only the main thread ever runs the main queue, so on the main thread a main-queue context is
        // always safe to use (also from inside a `performAndWait` of a private context called from there).
        case .mainQueue: Thread.isMainThread || DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        case .privateQueue: DispatchQueue.getSpecific(key: Self.queueKey) == serial
        }
    }

    /// Traps when the concurrency checker is on and the caller is not on the context's queue.
    func checkQueue(_ operation: @autoclosure () -> String) {
        guard Self.isConcurrencyDebugEnabled, !isOnQueue else { return }
        preconditionFailure(
            "ObjectGraph concurrency violation: \(operation()) on context \(self) outside its queue "
                + "(\(concurrencyType == .mainQueue ? "the main queue" : queue.label)). Use perform/performAndWait.")
    }

    static let isConcurrencyDebugEnabled: Bool = {
        guard let value = ProcessInfo.processInfo.environment["OBJECTGRAPH_CONCURRENCY_DEBUG"] else { return false }
        return value != "0" && !value.isEmpty
    }()

    private static let serials = Atomic<Int>(0)
    private static let queueKey = DispatchSpecificKey<Int>()
    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    private static let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

    // MARK: - Registration, insert, delete

    /// The objects currently registered (fetched, inserted or merged) in this context.
    public var registeredObjectsCount: Int { registry.count }
    /// The objects currently registered (fetched, inserted, faulted in or merged) in this context.
    public var registeredObjects: Set<ManagedObject> {
        checkQueue("registeredObjects")
        return Set(registry.values)
    }

    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ManagedObject> { Set(insertedObjectsByIdentity.values) }
    /// Saved objects with unsaved changes.
    public var updatedObjects: Set<ManagedObject> { Set(updatedObjectsByIdentity.values) }
    /// Saved objects deleted and not yet saved.
    public var deletedObjects: Set<ManagedObject> { Set(deletedObjectsByIdentity.values) }
    /// Whether the context has unsaved changes.
    public var hasChanges: Bool {
        checkQueue("hasChanges")
        return !insertedObjectsByIdentity.isEmpty || !updatedObjectsByIdentity.isEmpty
            || !deletedObjectsByIdentity.isEmpty
    }

    /// Creates and inserts an object of the entity named `entityName`, as Core Data's
    /// `NSEntityDescription.insertNewObject(forEntityName:into:)`.
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)`` when the model has no such entity (or it is abstract).
    public func insertNewObject(forEntityName entityName: String) throws(ObjectGraphError) -> ManagedObject {
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entity(named: entityName), !entity.isAbstract
        else { throw .unknownEntity(entityName) }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Registers a new object as inserted. Called by ``ManagedObject/init(entity:insertInto:)``.
    public func insert(_ object: ManagedObject) {
        checkQueue("insert(_:)")
        guard object.managedObjectContext == nil || object.managedObjectContext === self else {
            preconditionFailure("\(object.objectID) belongs to another context; objects never cross contexts.")
        }
        guard !object.insertedFlag else { return }
        undoWillChange(object)
        object.managedObjectContext = self
        object.markInserted()
        registry[object.objectID] = object
        insertedObjectsByIdentity[ObjectIdentifier(object)] = object
        pending.note(object, .inserted)
        if !object.hasAwokenFromInsert {
            object.hasAwokenFromInsert = true
            object.awakeFromInsert()
        }
        scheduleProcessing()
    }

    /// Marks `object` deleted; the deletion reaches the store at the next save. Deleting a never-saved
    /// object simply discards it.
    public func delete(_ object: ManagedObject) {
        checkQueue("delete(_:)")
        guard object.managedObjectContext === self, !object.deletedFlag else { return }
        // A fault learns its row version first, so the save's optimistic-locking check is against the row.
        if object.faultFlag { fulfillFault(object) }
        guard !object.deletedFlag else { return }
        undoWillChange(object)
        object.prepareForDeletion()
        object.markDeleted()
        propagateDeletion(of: object)
        let key = ObjectIdentifier(object)
        updatedObjectsByIdentity[key] = nil
        if object.insertedFlag {
            insertedObjectsByIdentity[key] = nil
            registry[object.objectID] = nil
            object.markDiscarded()
        } else {
            deletedObjectsByIdentity[key] = object
        }
        object.markDeleted()
        pending.note(object, .deleted)
        scheduleProcessing()
    }

    /// Records a value change of a registered object: of the attributes `changed` (all, when the change was
    /// to a relationship).
    func objectDidChange(_ object: ManagedObject, changed: AttributeBits = .all) {
        guard !object.insertedFlag, !object.deletedFlag else {
            if object.insertedFlag { pending.note(object, .updated, attributes: changed) }
            scheduleProcessing()
            return
        }
        if object.changedAttributes.isEmpty && object.changedRelationships.isEmpty { return }
        updatedObjectsByIdentity[ObjectIdentifier(object)] = object
        pending.note(object, .updated, attributes: changed)
        scheduleProcessing()
    }

    /// The registered object for `objectID`, without any I/O; nil when none is registered.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        checkQueue("registeredObject(for:)")
        return registered(objectID)
    }

    /// The object for `objectID`: the registered one, or a fault that loads its values when first read.
    /// Never does I/O; if the row no longer exists, the fault turns into a deleted object when fired.
    public func object(with objectID: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        checkQueue("object(with:)")
        if let object = registered(objectID) { return object }
        // A temporary ID that has become permanent means the saved row.
        let objectID = temporaryIDs[objectID] ?? objectID
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entity(named: objectID.entityName) else {
            throw .unknownEntity(objectID.entityName)
        }
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        object.objectID = objectID
        object.managedObjectContext = self
        object.becomeFault()
        registry[objectID] = object
        return object
    }

    /// The registered object for `objectID`, also when it is a temporary ID that has since become permanent.
    func registered(_ objectID: ManagedObjectID) -> ManagedObject? {
        registry[objectID] ?? temporaryIDs[objectID].flatMap { registry[$0] }
    }

    /// Observes this context's ``ObjectsDidChange``, delivered on the context's queue.
    public func addObjectsDidChangeObserver(_ handler: @escaping (ObjectsDidChange) -> Void) -> ObservationToken {
        addObjectsDidChangeObserver(followingObjectIDs: false, handler)
    }

    /// Observes this context's ``ObjectsDidChange``; when `followingObjectIDs`, also the events that only say
    /// that registered objects' IDs changed (see ``PendingChanges/objectIDsChanged``).
    func addObjectsDidChangeObserver(
        followingObjectIDs: Bool, _ handler: @escaping (ObjectsDidChange) -> Void
    ) -> ObservationToken {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        objectsDidChangeObservers.add(id, (handler, followingObjectIDs))
        return ObservationToken { [weak self] in self?.objectsDidChangeObservers.remove(id) }
    }

    /// Observes this context's saves, delivered on the saving (this context's) queue right after each save.
    public func addDidSaveObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> ObservationToken {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        didSaveObservers.add(id, handler)
        return ObservationToken { [weak self] in self?.didSaveObservers.remove(id) }
    }

    func notifyObjectsDidChange(_ change: ObjectsDidChange) {
        let handlers = objectsDidChangeObservers.handlers
        // (An event that only says IDs changed goes to those that follow IDs.)
        let onlyObjectIDs = change.isEmpty && change.recorded.changes.objectIDsChanged
        for observer in handlers where !onlyObjectIDs || observer.followsObjectIDs { observer.handler(change) }
    }

    /// Observes this context's saves just before they start (Core Data's `NSManagedObjectContextWillSave`),
    /// delivered on the context's queue.
    public func addWillSaveObserver(_ handler: @escaping () -> Void) -> ObservationToken {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        willSaveObservers.add(id, handler)
        return ObservationToken { [weak self] in self?.willSaveObservers.remove(id) }
    }

    func notifyWillSave() {
        for handler in willSaveObservers.handlers { handler() }
        NotificationCenter.default.post(name: .managedObjectContextWillSave, object: self)
    }

    func notifyDidSave(_ save: ContextDidSave) {
        for handler in didSaveObservers.handlers { handler(save) }
        NotificationCenter.default.post(
            name: .managedObjectContextDidSave, object: self, userInfo: [ContextDidSave.userInfoKey: save])
        notifyParentStoreSave(save)
    }

    /// Tells this context's children (those merging automatically) about a save that reached it.
    func notifyParentStoreSave(_ save: ContextDidSave) {
        for handler in parentStoreSaveObservers.handlers { handler(save) }
    }

    private func addParentStoreSaveObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void)
        -> ObservationToken
    {
        let id = nextObserverID.add(1, ordering: .relaxed).newValue
        parentStoreSaveObservers.add(id, handler)
        return ObservationToken { [weak self] in
            self?.parentStoreSaveObservers.remove(id)
        }
    }

    /// Tells this context's children that follow remote changes about another writer's commit it merged.
    func notifyRemoteMerge(_ save: ContextDidSave) {
        for handler in remoteMergeObservers.handlers { handler(save) }
    }

    private func updateAutomaticMerging() {
        automaticMergeToken = nil
        remoteMergeToken = nil
        let me = ObjectIdentifier(self)
        if let parent, automaticallyMergesRemoteChanges {
            // Another writer's commit reaches a child through its parent, once the parent has merged it.
            let id = parent.nextObserverID.add(1, ordering: .relaxed).newValue
            parent.remoteMergeObservers.add(id) { [weak self] save in self?.enqueueMerge(save) }
            remoteMergeToken = ObservationToken { [weak parent] in
                parent?.remoteMergeObservers.remove(id)
            }
        }
        let merge: @Sendable (ContextDidSave) -> Void = { [weak self] save in
            guard save.sourceContext != me else { return }
            self?.enqueueMerge(save)
        }
        if let parent {
            if automaticallyMergesChangesFromParent { automaticMergeToken = parent.addParentStoreSaveObserver(merge) }
        } else if let coordinator = attachedCoordinator,
            automaticallyMergesChangesFromParent || automaticallyMergesRemoteChanges
        {
            let local = automaticallyMergesChangesFromParent
            let remote = automaticallyMergesRemoteChanges
            automaticMergeToken = coordinator.addCommitObserver { [weak self] event in
                guard event.sourceContext != me, event.origin.isRemote ? remote : local,
                    !event.isEmpty || event.invalidatesAllObjects
                else { return }
                self?.enqueueMerge(ContextDidSave(event))
            }
        }
    }

    /// Where this context reads rows: its parent context, or its coordinator's stores.
    func objectSource() throws(ObjectGraphError) -> any ObjectSource {
        if let parent { return ParentContextObjectSource(parent: parent, child: self) }
        guard let coordinator = attachedCoordinator else { throw .noCoordinator(context: description) }
        return CoordinatorObjectSource(coordinator: coordinator)
    }

    public var description: String {
        "<ManagedObjectContext \(name ?? "#\(serial)") \(concurrencyType == .mainQueue ? "main" : "private")>"
    }
}

/// A store of rows that a ``PersistentStoreCoordinator`` can use: the role of Core Data's `NSIncrementalStore`.
///
/// ObjectGraph's SQLite, in-memory and atomic stores implement it, and so can yours: register a type for it
/// with ``PersistentStoreCoordinator/registerStoreType(_:opener:)`` and add stores of that type as any other.
/// The coordinator calls a store synchronously, from any thread (often several at once): a store is
/// `Sendable` and guards its own state.
///
/// The contract:
/// - Rows carry object IDs naming the store's identifier (``ManagedObjectID/storeIdentifier``) and a
///   version (`Z_OPT`); a save bumps the version of each row it changes.
/// - ``save(_:)`` applies a whole request in one transaction or nothing; an update or delete of a row whose
///   version is not the expected one fails the save with ``ObjectGraphError/mergeConflicts(_:)``.
/// - ``fetch(_:)`` and ``count(_:)`` answer as the in-memory store does: the same predicate semantics
///   (``FetchPredicate/evaluate(_:)``), the same sort order, ties broken by primary key.
/// - Primary keys are never handed out twice, whoever asks (``allocatePrimaryKeys(for:count:)`` and saves).
///
/// Optional capabilities are further protocols: ``RemoteChangeObservingStore`` (other writers' commits),
/// ``BatchRequestStore`` (batch requests) and ``PersistentHistoryStore`` (persistent history).
public protocol IncrementalStore: AnyObject, Sendable {
    /// Whether the store was opened read-only (it then refuses saves, key allocation and metadata writes with
    /// ``ObjectGraphError/readOnlyStore(store:)``).
    var isReadOnly: Bool { get }
    /// The rows `request` selects, in its order (sort criteria, then primary key), after its offset and up to
    /// its limit. With ``StoreFetchRequest/includesSubentities``, rows of sub-entities come back too, each as
    /// its own entity.
    func fetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot]
    /// How many rows `request` selects (its sort and offset ignored); with a limit above zero, counting may
    /// stop there.
    func count(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int
    /// The rows with these IDs (all of `entity` or its sub-entities) that still exist, in any order.
    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// Applies all changes in one transaction, or none of them, and returns permanent IDs and new versions.
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult
    /// The objects a to-many relationship of `objectID` holds in the store, in order (ordered relationships)
    /// or by primary key.
    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    /// The same for many objects of `entity` at once (prefetching); a default asks once per object.
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    /// Reserves `count` new primary keys in the key space of `entity`'s inheritance hierarchy, durably, and
    /// returns them: no later allocation or save, by this client or any other, hands them out again.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64>
    /// Replaces the store's metadata (system keys and the app's ``StoreMetadata/userInfo``), durably.
    func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError)
}

/// What a fetch asks a store for: the fetch parameters of ``FetchRequest`` that stores see, as one value.
public struct StoreFetchRequest: Sendable {
    /// What the caller will make of the rows; a store may use it to read less.
    public enum ResultShape: Sendable, Hashable {
        /// Whole rows (values, version, to-one destinations).
        case rows
        /// Only the object IDs matter (values may be left empty).
        case objectIDs
        /// Only the number of rows matters.
        case count
    }

    /// The entity whose rows are wanted.
    public var entity: EntityDescription
    /// The condition rows must meet; nil for every row.
    public var predicate: FetchPredicate?
    /// The order, before the primary key that breaks ties.
    public var sortCriteria: [SortCriterion]
    /// The most rows to return; 0 for no limit.
    public var fetchLimit: Int
    /// How many rows (in order) to skip.
    public var fetchOffset: Int
    /// Whether rows of `entity`'s sub-entities are wanted too.
    public var includesSubentities: Bool
    /// What the caller will make of the rows.
    public var resultShape: ResultShape

    /// A request for rows of `entity`; the defaults select every row, unordered but for the primary key.
    public init(
        entity: EntityDescription, predicate: FetchPredicate? = nil, sortCriteria: [SortCriterion] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, includesSubentities: Bool = true, resultShape: ResultShape = .rows
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortCriteria = sortCriteria
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
        self.resultShape = resultShape
    }
}

/// A store that hears of other writers' commits (other processes, other hosts): an optional capability of an
/// ``IncrementalStore``. With ``PersistentStoreOptions/remoteChangeNotifications`` on, the coordinator starts
/// observing when the store is added and stops when it is removed; each delivered commit becomes a
/// ``StoreCommitEvent`` (which contexts that merge automatically merge) and a
/// ``Foundation/NSNotification/Name/persistentStoreRemoteChange`` notification.
public protocol RemoteChangeObservingStore: IncrementalStore {
    /// Starts calling `deliver` (on a queue of the store's choosing, one commit at a time, in commit order) for
    /// every commit of another writer. The store must already return the committed rows when `deliver` runs.
    func startObservingRemoteChanges(_ deliver: @escaping @Sendable (RemoteCommit) -> Void) throws(ObjectGraphError)
    /// Stops the observation; no `deliver` call starts after it returns.
    func stopObservingRemoteChanges()
}

/// One commit of another writer, as a ``RemoteChangeObservingStore`` reports it.
public struct RemoteCommit: Sendable {
    /// The objects it inserted.
    public var inserted: [ManagedObjectID]
    /// The objects it updated, with the names of changed properties (empty when not known).
    public var updated: [ManagedObjectID: Set<String>]
    /// The objects it deleted.
    public var deleted: [ManagedObjectID]
    /// The committing process, when known.
    public var processID: String?
    /// The transaction author, when known.
    public var author: String?
    /// The saving context's name, when known.
    public var contextName: String?
    /// The store's transaction number of the commit, when it has one.
    public var transactionNumber: Int64?
    /// The store's new metadata when the commit was a migration to another model version by another client: the
    /// coordinator then reports ``StoreCommitEvent/Kind/migration`` and refuses saves (see
    /// ``PersistentStoreCoordinator/storeMigratedElsewhere(_:)``).
    public var migratedMetadata: StoreMetadata?
    /// Whether the store's contents were replaced wholesale (a backup restored over them): rows may have gone back
    /// to older versions or taken other values at the same version, so the coordinator empties its row cache and
    /// reports ``StoreCommitEvent/Kind/contentsReplaced``, after which merging contexts refresh every object,
    /// instead of a commit of these objects.
    public var replacesContents = false

    /// A commit that changed these objects.
    public init(
        inserted: [ManagedObjectID] = [], updated: [ManagedObjectID: Set<String>] = [:], deleted: [ManagedObjectID] = [],
        processID: String? = nil, author: String? = nil, contextName: String? = nil, transactionNumber: Int64? = nil
    ) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.processID = processID
        self.author = author
        self.contextName = contextName
        self.transactionNumber = transactionNumber
    }
}

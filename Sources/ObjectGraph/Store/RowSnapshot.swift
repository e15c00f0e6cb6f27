/// A row as the store holds it: values in entity attribute order (transients are nil) and its version.
///
/// Snapshots are immutable and `Sendable`: save notifications carry them to other queues, so merging a
/// save into another context needs no store round trip.
struct RowSnapshot: Sendable {
    let objectID: ManagedObjectID
    let values: [AttributeValue]
    let version: Int64
    /// The destinations of stored to-one relationships, in entity relationship order (nil: none or to-many).
    var toOne: [ManagedObjectID?] = []
}

/// One save's worth of changes for a store, applied in one transaction.
struct StoreSaveRequest: Sendable {
    struct Insert: Sendable {
        let temporaryID: ManagedObjectID
        let entity: EntityDescription
        let values: [AttributeValue]
        /// To-one destinations in relationship order (temporary IDs of objects inserted by the same save allowed).
        var toOne: [ManagedObjectID?] = []
        /// The permanent ID handed out ahead of the save (``PersistentStoreCoordinator/obtainPermanentIDs(for:)``):
        /// the row is inserted with its primary key instead of a new one. Nil: the store assigns a key.
        var permanentID: ManagedObjectID? = nil
    }
    struct Update: Sendable {
        let objectID: ManagedObjectID
        let entity: EntityDescription
        let values: [AttributeValue]
        let expectedVersion: Int64
        var toOne: [ManagedObjectID?] = []
        /// The attributes and relationships (by index) the save changed, for the persistent history; nil when
        /// not known.
        var changedProperties: (attributes: IndexBits, relationships: IndexBits)? = nil
    }
    /// Rows of a many-to-many join table to add and remove for one object's relationship.
    struct JoinChange: Sendable {
        let objectID: ManagedObjectID
        let entity: EntityDescription
        let relationshipIndex: Int
        let added: [ManagedObjectID]
        let removed: [ManagedObjectID]
    }
    struct Delete: Sendable {
        let objectID: ManagedObjectID
        let entity: EntityDescription
        let expectedVersion: Int64
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var joinChanges: [JoinChange] = []
    /// The new order of changed ordered to-many relationships (owner, relationship, destinations in order).
    var orderChanges: [JoinChange] = []
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, for the persistent history.
    var author: String?
    /// The saving context's name, for the persistent history.
    var contextName: String?
}

/// What a successful save gave back: permanent IDs for inserted objects and new row versions.
struct StoreSaveResult: Sendable {
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    var versions: [ManagedObjectID: Int64] = [:]
    /// The values the store keeps in files, as references (attribute index → reference), by object: the saving
    /// context holds these instead of the bytes from then on, so that saving the object again keeps the file.
    var externalValues: [ManagedObjectID: [Int: AttributeValue]] = [:]
    /// The persistent-history transaction the save was recorded as, when the store records history.
    var transactionNumber: Int64?
    /// The rows as committed (inserted objects in request order, then updated ones), when one store took the whole
    /// save: the coordinator built them for the commit event, and the saving context reuses them.
    var committedRows: [RowSnapshot]?
}

/// The operations every store type offers the coordinator.
protocol StoreBackend: AnyObject, Sendable {
    /// Rows of `entity` matching `predicate`, ordered by `sortCriteria` then primary key.
    /// With `includesSubentities`, rows of sub-entities come back too (as their own entity).
    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot]
    /// The rows `fetch` would return, reduced to their IDs and the values of the attributes `keys` (see
    /// ``KeyedRow``); a default reads whole rows.
    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow]
    /// The same rows handed to `visit` one at a time, in order, without collecting them: for readers of
    /// very many rows that keep little of each (a controller without change tracking keeps IDs only). The
    /// values array is reused between calls. A default reads ``fetchKeyedRows`` and walks it.
    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError)
    /// The number of rows of `entity` (and, with `includesSubentities`, its sub-entities) matching `predicate`;
    /// with a `limit` above zero, counting stops there (an existence check need not count a million rows).
    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, limit: Int)
        throws(ObjectGraphError) -> Int
    /// The rows with these IDs that still exist.
    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// Applies all changes in one transaction, or none of them.
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult
    /// The objects a to-many relationship of `objectID` holds in the store, in order (ordered
    /// relationships) or by primary key.
    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    /// The same for many objects of `entity` at once (prefetching): one query where the store can.
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    /// Whether the store was opened read-only (it then refuses saves, key allocation and metadata writes).
    var isReadOnly: Bool { get }
    /// Reserves `count` new primary keys in the key space of `entity`'s hierarchy, durably, and returns them.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64>
    /// Replaces the store's metadata (system keys and the app's ``StoreMetadata/userInfo``), durably.
    func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError)
}

extension StoreBackend {
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in objectIDs { result[id] = try relatedIDs(of: id, entity: entity, relationshipIndex: relationshipIndex) }
        return result
    }
}

/// A row as the store holds it: values in entity attribute order (transients are nil) and its version.
///
/// Snapshots are immutable and `Sendable`: save notifications carry them to other queues, so merging a
/// save into another context needs no store round trip.
/// Stores hand these to the coordinator (``IncrementalStore/fetch(_:)``, ``IncrementalStore/rows(for:entity:)``).
public struct RowSnapshot: Sendable, Hashable {
    /// The row's object, as its own (possibly sub-) entity.
    public let objectID: ManagedObjectID
    /// The values in the attribute order of the object's entity (`.null` for transients and nil values).
    public let values: [AttributeValue]
    /// The row version (Core Data's `Z_OPT`): 1 when inserted, one more with each save that changes the row.
    public let version: Int64
    /// The destinations of stored to-one relationships, in entity relationship order (nil: none or to-many).
    public var toOne: [ManagedObjectID?] = []

    /// A row of `objectID` with `values` in attribute order, its `version` and to-one destinations.
    public init(objectID: ManagedObjectID, values: [AttributeValue], version: Int64, toOne: [ManagedObjectID?] = []) {
        self.objectID = objectID
        self.values = values
        self.version = version
        self.toOne = toOne
    }
}

/// One save's worth of changes for a store, applied in one transaction (``IncrementalStore/save(_:)``).
public struct StoreSaveRequest: Sendable {
    /// A new object: its row to insert.
    public struct Insert: Sendable {
        /// The object's temporary ID, which the result maps to its permanent one.
        public let temporaryID: ManagedObjectID
        /// The object's (concrete) entity.
        public let entity: EntityDescription
        /// The values in attribute order.
        public let values: [AttributeValue]
        /// To-one destinations in relationship order (temporary IDs of objects inserted by the same save allowed).
        public var toOne: [ManagedObjectID?] = []
        /// The permanent ID handed out ahead of the save (``ManagedObjectContext/obtainPermanentIDs(for:)``):
        /// the row is inserted with its primary key instead of a new one. Nil: the store assigns a key.
        public var permanentID: ManagedObjectID? = nil

        /// An insert of `values` (and `toOne`) for the object `temporaryID` of `entity`.
        public init(temporaryID: ManagedObjectID, entity: EntityDescription, values: [AttributeValue],
            toOne: [ManagedObjectID?] = [], permanentID: ManagedObjectID? = nil)
        {
            self.temporaryID = temporaryID
            self.entity = entity
            self.values = values
            self.toOne = toOne
            self.permanentID = permanentID
        }
    }
    /// A changed object: its new values, saved only when the row still has `expectedVersion` (optimistic locking).
    public struct Update: Sendable {
        /// The object.
        public let objectID: ManagedObjectID
        /// Its (concrete) entity.
        public let entity: EntityDescription
        /// The new values in attribute order.
        public let values: [AttributeValue]
        /// The row version the context read; a store holding another version reports a ``MergeConflict``.
        public let expectedVersion: Int64
        /// The new to-one destinations in relationship order.
        public var toOne: [ManagedObjectID?] = []
        /// The attributes and relationships (by index) the save changed, for the persistent history; nil when
        /// not known.
        var changedProperties: (attributes: IndexBits, relationships: IndexBits)? = nil

        /// An update of `objectID` to `values` (and `toOne`), expected at row version `expectedVersion`.
        public init(objectID: ManagedObjectID, entity: EntityDescription, values: [AttributeValue],
            expectedVersion: Int64, toOne: [ManagedObjectID?] = [])
        {
            self.objectID = objectID
            self.entity = entity
            self.values = values
            self.expectedVersion = expectedVersion
            self.toOne = toOne
        }

        /// The same, with the changed properties by index (what a context knows).
        init(objectID: ManagedObjectID, entity: EntityDescription, values: [AttributeValue], expectedVersion: Int64,
            toOne: [ManagedObjectID?] = [], changedProperties: (attributes: IndexBits, relationships: IndexBits)?)
        {
            self.init(objectID: objectID, entity: entity, values: values, expectedVersion: expectedVersion, toOne: toOne)
            self.changedProperties = changedProperties
        }

        /// The names of the attributes and relationships the save changed; nil when not known.
        public var changedPropertyNames: Set<String>? {
            guard let changed = changedProperties else { return nil }
            var names = Set(changed.attributes.compactMap { entity.attributes.indices.contains($0) ? entity.attributes[$0].name : nil })
            for index in changed.relationships where entity.relationships.indices.contains(index) {
                names.insert(entity.relationships[index].name)
            }
            return names
        }
    }
    /// Rows of a many-to-many join table to add and remove for one object's relationship (in ``joinChanges``), or
    /// the whole new order of an ordered to-many relationship (in ``orderChanges``: `added` is the order).
    public struct JoinChange: Sendable {
        /// The owning object.
        public let objectID: ManagedObjectID
        /// Its (concrete) entity.
        public let entity: EntityDescription
        /// The relationship's index in `entity.relationships`.
        public let relationshipIndex: Int
        /// Objects added (for an order change: every member, in order).
        public let added: [ManagedObjectID]
        /// Objects removed.
        public let removed: [ManagedObjectID]

        /// A change of `objectID`'s relationship `relationshipIndex`.
        public init(objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int,
            added: [ManagedObjectID], removed: [ManagedObjectID])
        {
            self.objectID = objectID
            self.entity = entity
            self.relationshipIndex = relationshipIndex
            self.added = added
            self.removed = removed
        }
    }
    /// A deleted object, deleted only when the row still has `expectedVersion`.
    public struct Delete: Sendable {
        /// The object.
        public let objectID: ManagedObjectID
        /// Its (concrete) entity.
        public let entity: EntityDescription
        /// The row version the context read.
        public let expectedVersion: Int64

        /// A delete of `objectID`, expected at row version `expectedVersion`.
        public init(objectID: ManagedObjectID, entity: EntityDescription, expectedVersion: Int64) {
            self.objectID = objectID
            self.entity = entity
            self.expectedVersion = expectedVersion
        }
    }
    /// New objects, in the order the context inserted them.
    public var inserts: [Insert] = []
    /// Changed objects.
    public var updates: [Update] = []
    /// Deleted objects.
    public var deletes: [Delete] = []
    /// Many-to-many memberships added and removed.
    public var joinChanges: [JoinChange] = []
    /// The new order of changed ordered to-many relationships (owner, relationship, destinations in order).
    public var orderChanges: [JoinChange] = []
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, for the persistent history.
    public var author: String?
    /// The saving context's name, for the persistent history.
    public var contextName: String?

    /// An empty request.
    public init() {}
}

/// What a successful save gave back: permanent IDs for inserted objects and new row versions.
public struct StoreSaveResult: Sendable {
    /// The permanent ID of every inserted object, by its temporary ID.
    public var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    /// The new row version of every inserted and updated object (by permanent ID).
    public var versions: [ManagedObjectID: Int64] = [:]
    /// The values the store keeps in files or apart from its rows, as references (attribute index → reference,
    /// e.g. ``StoredValueReference/attributeValue``), by permanent object ID: the saving context holds these instead
    /// of the bytes from then on, so that saving the object again keeps the stored value.
    @_spi(StoreImplementation) public var externalValues: [ManagedObjectID: [Int: AttributeValue]] = [:]
    /// The persistent-history transaction the save was recorded as, when the store records history.
    public var transactionNumber: Int64?
    /// The rows as committed (inserted objects in request order, then updated ones), when one store took the whole
    /// save: the coordinator built them for the commit event, and the saving context reuses them.
    var committedRows: [RowSnapshot]?

    /// An empty result (fill in ``permanentIDs`` and ``versions``).
    public init() {}
}

/// The operations the coordinator's own stores offer it, beyond the public ``IncrementalStore``: fetches with
/// their parameters spelled out (what ``StoreFetchRequest`` groups) and keyed-row reads. SQLite, in-memory and
/// atomic stores implement it; a third-party store is adapted by ``ForeignStoreBackend``.
protocol StoreBackend: IncrementalStore {
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
}

extension StoreBackend {
    /// ``IncrementalStore/fetch(_:)`` for the built-in stores: their fetch with the request's parts.
    func fetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot] {
        try fetch(entity: request.entity, predicate: request.predicate, sortCriteria: request.sortCriteria,
            limit: request.fetchLimit, offset: request.fetchOffset, includesSubentities: request.includesSubentities)
    }

    /// ``IncrementalStore/count(_:)`` for the built-in stores.
    func count(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int {
        try count(entity: request.entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
            limit: request.fetchLimit)
    }
}

extension IncrementalStore {
    /// One `relatedIDs(of:)` per object: for stores that cannot do better.
    public func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in objectIDs { result[id] = try relatedIDs(of: id, entity: entity, relationshipIndex: relationshipIndex) }
        return result
    }
}

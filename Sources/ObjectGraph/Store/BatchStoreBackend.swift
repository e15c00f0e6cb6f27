/// The store operations behind dictionary fetches and batch requests: work done inside the store, on its
/// rows, without managed objects. Both store types implement it with the same semantics — the SQLite store
/// in SQL, the in-memory store on its rows — so each is the other's oracle.
protocol BatchStoreBackend: StoreBackend, BatchRequestStore {
    /// The result dictionaries of `plan` (nil values left out), computed from saved rows.
    func fetchDictionaries(_ plan: DictionaryFetchPlan) throws(ObjectGraphError) -> [[String: AttributeValue]]
}

/// A store that runs batch requests (``BatchInsertRequest``, ``BatchUpdateRequest``, ``BatchDeleteRequest``)
/// itself, without managed objects: an optional capability of an ``IncrementalStore``.
public protocol BatchRequestStore: IncrementalStore {
    /// Runs one batch operation in one transaction (all of it, or nothing) and reports what it changed;
    /// `label` names who ran it, for the persistent history. Every changed row's version goes up by one; a
    /// delete applies the delete rules of the deleted rows (nullify, cascade, deny).
    func execute(_ operation: StoreBatchOperation, label: TransactionLabel) throws(ObjectGraphError) -> StoreBatchOutcome
}

/// One batch request as a store runs it: entity resolved, values checked and in attribute order.
public enum StoreBatchOperation {
    /// Inserts the rows `nextRow` hands out (each a full list of values in attribute order) until it
    /// returns nil, with new primary keys and version 1.
    case insert(entity: EntityDescription, nextRow: () throws(ObjectGraphError) -> [AttributeValue]?)
    /// Sets `values` (attribute index → value) on every row of `entity` matching `predicate`, bumping each
    /// row's version.
    case update(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        values: [(attributeIndex: Int, value: AttributeValue)])
    /// Deletes the rows of `entity` matching `predicate` (or, when `objectIDs` is given, those objects),
    /// applying every delete rule of the deleted rows (see `BatchDeletePlanner`).
    case delete(entity: EntityDescription, predicate: FetchPredicate?, objectIDs: [ManagedObjectID]?,
        includesSubentities: Bool)
}

/// Who committed a transaction, as the persistent history records it.
public struct TransactionLabel: Sendable {
    /// The context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The context's name.
    public var contextName: String?

    /// A label naming `author` and `contextName`.
    public init(author: String? = nil, contextName: String? = nil) {
        self.author = author
        self.contextName = contextName
    }
}

/// What a batch operation changed, by object ID.
public struct StoreBatchOutcome: Sendable {
    /// Rows the operation inserted.
    public var inserted: [ManagedObjectID] = []
    /// Rows the operation updated (for a delete: the objects whose relationships its delete rules changed).
    public var updated: [ManagedObjectID] = []
    /// Rows the operation deleted, cascaded deletions included.
    public var deleted: [ManagedObjectID] = []
    /// The persistent-history transaction the operation was recorded as, when the store records history.
    public var transactionNumber: Int64? = nil

    /// An outcome listing these objects.
    public init(inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = [],
        transactionNumber: Int64? = nil)
    {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.transactionNumber = transactionNumber
    }
}

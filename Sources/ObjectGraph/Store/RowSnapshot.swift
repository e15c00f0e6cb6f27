/// A row as the store holds it: values in entity attribute order (transients are nil) and its version.
///
/// Snapshots are immutable and `Sendable`: save notifications carry them to other queues, so merging a
/// save into another context needs no store round trip.
struct RowSnapshot: Sendable {
    let objectID: ManagedObjectID
    let values: [AttributeValue]
    let version: Int64
}

/// One save's worth of changes for a store, applied in one transaction.
struct StoreSaveRequest: Sendable {
    struct Insert: Sendable {
        let temporaryID: ManagedObjectID
        let entity: EntityDescription
        let values: [AttributeValue]
    }
    struct Update: Sendable {
        let objectID: ManagedObjectID
        let entity: EntityDescription
        let values: [AttributeValue]
        let expectedVersion: Int64
    }
    struct Delete: Sendable {
        let objectID: ManagedObjectID
        let entity: EntityDescription
        let expectedVersion: Int64
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
}

/// What a successful save gave back: permanent IDs for inserted objects and new row versions.
struct StoreSaveResult: Sendable {
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    var versions: [ManagedObjectID: Int64] = [:]
}

/// The operations every store type offers the coordinator.
protocol StoreBackend: AnyObject, Sendable {
    /// Rows of `entity` matching `predicate`, ordered by `sortCriteria` then primary key.
    /// With `includesSubentities`, rows of sub-entities come back too (as their own entity).
    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot]
    /// The number of rows of `entity` (and, with `includesSubentities`, its sub-entities) matching `predicate`.
    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool)
        throws(ObjectGraphError) -> Int
    /// The rows with these IDs that still exist.
    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// Applies all changes in one transaction, or none of them.
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult
}

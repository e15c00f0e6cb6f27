import Foundation

/// Where a context reads the rows behind its objects: the coordinator's stores for a context attached to a
/// coordinator, the parent context for a child context (Core Data's "parent store").
///
/// Rows come back as ``RowSnapshot``s either way, so fetching, fault firing and relationship loading work
/// the same in a child as in a root context; a child simply sees its parent's unsaved state as "the store".
protocol ObjectSource: Sendable {
    /// Rows of `entity` matching `predicate`, in `sortCriteria` order, then by object ID, from `stores` (nil:
    /// every store that holds the entity; see ``FetchRequest/affectedStores``).
    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> [RowSnapshot]
    /// The rows `fetch` would return, reduced to IDs and the values of attributes `keys` (see ``KeyedRow``).
    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow]
    /// The rows `fetchKeyedRows` would return without limit and offset, handed to `visit` one at a time
    /// (the values array may be reused between calls).
    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError)
    /// The number of rows `fetch` would return without limit and offset, counted up to `limit` (zero: all).
    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        stores: [PersistentStore]?, limit: Int) throws(ObjectGraphError) -> Int
    /// The rows with these IDs that (still) exist.
    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot]
    /// The destinations of a to-many relationship of one object, in order for ordered relationships.
    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    /// The same for many objects at once (prefetching).
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
}

/// A root context's source: the stores that hold each entity (their results merged when there are several)
/// or that each ID names, through the coordinator — whose row cache answers fault firing without a query when
/// it has the row.
struct CoordinatorObjectSource: ObjectSource {
    let coordinator: PersistentStoreCoordinator

    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let epoch = coordinator.rowCache.withLock { $0.epoch }
        let rows = try coordinator.mergedRows(
            entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit, offset: offset,
            includesSubentities: includesSubentities, affectedStores: stores)
        // Newer versions than the cache holds (another process's or coordinator's saves) replace what it holds.
        coordinator.rowCache.withLock { $0.replaceOlder(with: rows, ifEpoch: epoch) }
        return rows
    }

    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow] {
        try coordinator.mergedKeyedRows(
            entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys, limit: limit, offset: offset,
            includesSubentities: includesSubentities, affectedStores: stores)
    }

    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        try coordinator.visitMergedKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
            keys: keys, includesSubentities: includesSubentities, affectedStores: stores, visit: visit)
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        stores: [PersistentStore]?, limit: Int) throws(ObjectGraphError) -> Int
    {
        try coordinator.count(entity: entity, predicate: predicate, includesSubentities: includesSubentities,
            affectedStores: stores, limit: limit)
    }

    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try coordinator.rows(for: ids, entity: entity)
    }

    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        try coordinator.store(for: objectID).backend.relatedIDs(
            of: objectID, entity: entity, relationshipIndex: relationshipIndex)
    }

    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        try coordinator.relatedIDs(ofMany: objectIDs, entity: entity, relationshipIndex: relationshipIndex)
    }
}

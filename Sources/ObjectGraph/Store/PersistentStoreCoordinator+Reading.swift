extension PersistentStoreCoordinator {
    /// The saved rows of the objects `ids` (of `entity` or its sub-entities), in the order asked, leaving out
    /// rows that no longer exist and temporary IDs.
    ///
    /// Rows come from the row cache when it has them; only the missing ones are read, each from the store
    /// its ID names, and then cached. So firing the fault of an object any context of this coordinator saved
    /// or read recently costs no store access. The cache can lag behind the file when another process (or
    /// another coordinator) writes it, as Core Data's does; pass `bypassingCache` to read every row from its
    /// store (refreshing the cache with what it finds).
    ///
    /// - Throws: ``ObjectGraphError/unknownStore(identifier:)`` for an ID of a store that is not added, or a
    ///   store error.
    func rows(for ids: [ManagedObjectID], entity: EntityDescription, bypassingCache: Bool = false)
        throws(ObjectGraphError) -> [RowSnapshot]
    {
        var seen: Set<ManagedObjectID> = []
        let wanted = ids.filter { !$0.isTemporaryID && seen.insert($0).inserted }
        var found: [RowKey: RowSnapshot] = [:]
        var missing: [ManagedObjectID] = []
        let epoch: UInt64 = rowCache.withLock { cache in
            for id in wanted {
                if !bypassingCache, let row = cache.snapshot(for: id) {
                    found[RowKey(id)] = row
                } else {
                    missing.append(id)
                }
            }
            return cache.epoch
        }
        rowCacheHits.add(found.count, ordering: .relaxed)
        if !missing.isEmpty {
            for (store, storeIDs) in try group(missing) {
                let rows = try store.backend.rows(for: storeIDs, entity: entity)
                rowCache.withLock { $0.insert(rows, ifEpoch: epoch) }
                for row in rows { found[RowKey(row.objectID)] = row }
            }
        }
        return wanted.compactMap { found[RowKey($0)] }
    }

    /// Rows of `entity` matching `predicate` from the stores that hold the entity (see
    /// ``mergedRows(entity:predicate:sortCriteria:limit:offset:includesSubentities:affectedStores:)``), ordered
    /// by `sortCriteria` then object ID — what a context's fetch reads. The rows also enter the row cache, so
    /// faults of the fetched objects fire without another query.
    func fetchRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, affectedStores: [PersistentStore]? = nil
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let epoch = rowCache.withLock { $0.epoch }
        let rows = try mergedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
            limit: limit, offset: offset, includesSubentities: includesSubentities, affectedStores: affectedStores)
        rowCache.withLock { $0.insert(rows, ifEpoch: epoch) }
        return rows
    }

    /// The destinations of a to-many relationship of each object, each owner asked of the store its ID names.
    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for (store, ids) in try group(objectIDs.filter { !$0.isTemporaryID }) {
            let related = try store.backend.relatedIDs(ofMany: ids, entity: entity, relationshipIndex: relationshipIndex)
            result.merge(related) { _, new in new }
        }
        return result
    }

    /// Permanent IDs grouped by the store they name, in the order of the coordinator's stores.
    private func group(_ ids: [ManagedObjectID]) throws(ObjectGraphError) -> [(PersistentStore, [ManagedObjectID])] {
        var byStore: [String: [ManagedObjectID]] = [:]
        for id in ids { byStore[id.storeIdentifier, default: []].append(id) }
        var groups: [(PersistentStore, [ManagedObjectID])] = []
        for store in persistentStores {
            if let members = byStore.removeValue(forKey: store.identifier) { groups.append((store, members)) }
        }
        if let unknown = byStore.keys.sorted().first { throw .unknownStore(identifier: unknown) }
        return groups
    }
}

/// A row's identity regardless of which entity name an ID gives it: a sub-entity's row may be asked for
/// under its parent's name.
private struct RowKey: Hashable {
    let store: String
    let key: Int64

    init(_ id: ManagedObjectID) {
        store = id.storeIdentifier
        key = id.primaryKey ?? -1
    }
}

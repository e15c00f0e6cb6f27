import Foundation

/// Fetches across stores: an entity may be held by several stores (stores added without a configuration hold
/// every entity, and configurations may list the same entity), and a fetch reads every one of them.
///
/// Each store computes its part (predicate, order, and at most `offset + limit` rows); the parts are merged in
/// the request's order, with ties broken as everywhere (``ManagedObjectID/precedes(_:)``: primary key, entity
/// name, then store identifier), and only then are the offset and the limit applied. Counts add up. A fetch
/// that reads one store is passed straight to it, as before.
extension PersistentStoreCoordinator {
    /// The stores a fetch of `entity` reads, in the coordinator's order: those whose configuration holds the
    /// entity (or, with `includesSubentities`, one of its sub-entities), limited to `affectedStores` if given.
    ///
    /// - Throws: ``ObjectGraphError/noPersistentStore`` without stores; ``ObjectGraphError/noStoreForEntity(_:)``
    ///   when no store holds the entity (and `affectedStores` is nil); ``ObjectGraphError/unknownStore(identifier:)``
    ///   for an affected store that is not added to this coordinator.
    func stores(forFetching entity: EntityDescription, includesSubentities: Bool, affectedStores: [PersistentStore]?)
        throws(ObjectGraphError) -> [PersistentStore]
    {
        let all = persistentStores
        guard !all.isEmpty else { throw .noPersistentStore }
        let names = includesSubentities ? managedObjectModel.entityAndDescendants(of: entity).map(\.name) : [entity.name]
        let holding = all.filter { store in names.contains { store.holdsEntity(named: $0) } }
        guard let affectedStores else {
            guard !holding.isEmpty else { throw .noStoreForEntity(entity.name) }
            return holding
        }
        if let stranger = affectedStores.first(where: { store in !all.contains { $0 === store } }) {
            throw .unknownStore(identifier: stranger.identifier)
        }
        return holding.filter { store in affectedStores.contains { $0 === store } }
    }

    /// Rows of `entity` matching `predicate` from every store that holds it (or from `affectedStores`), merged in
    /// `sortCriteria` order, then cut by `offset` and `limit` (0: no limit).
    func mergedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int, offset: Int,
        includesSubentities: Bool, affectedStores: [PersistentStore]? = nil
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let stores = try stores(forFetching: entity, includesSubentities: includesSubentities,
            affectedStores: affectedStores)
        guard stores.count > 1 else {
            guard let store = stores.first else { return [] }
            return try store.backend.fetch(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
                limit: limit, offset: offset, includesSubentities: includesSubentities)
        }
        // Every store's first offset + limit rows hold the merged window.
        let window = limit > 0 ? max(offset, 0) + limit : 0
        var rows: [RowSnapshot] = []
        for store in stores {
            rows += try store.backend.fetch(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
                limit: window, offset: 0, includesSubentities: includesSubentities)
        }
        let ordering = RowOrdering(criteria: sortCriteria)
        let graph = StoredRowGraph(coordinator: self)
        let keyed = rows.map { row in (keys: ordering.sortKeys(for: graph.subject(for: row)), row: row) }
        let sorted = keyed.sorted { ordering.precedes($0.keys, $0.row.objectID, $1.keys, $1.row.objectID) }
        let start = min(max(offset, 0), sorted.count)
        let end = limit > 0 ? min(start + limit, sorted.count) : sorted.count
        return sorted[start..<end].map(\.row)
    }

    /// What ``mergedRows(entity:predicate:sortCriteria:limit:offset:includesSubentities:affectedStores:)``
    /// returns, reduced to IDs and the attributes `keys`: one store answers with only those columns; rows of
    /// several stores are read whole, merged, then reduced.
    func mergedKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, affectedStores: [PersistentStore]? = nil
    ) throws(ObjectGraphError) -> [KeyedRow] {
        let stores = try stores(forFetching: entity, includesSubentities: includesSubentities,
            affectedStores: affectedStores)
        guard stores.count > 1 else {
            guard let store = stores.first else { return [] }
            return try store.backend.fetchKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
                keys: keys, limit: limit, offset: offset, includesSubentities: includesSubentities,
                model: managedObjectModel)
        }
        let rows = try mergedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit,
            offset: offset, includesSubentities: includesSubentities, affectedStores: affectedStores)
        return KeyedRow.reduce(rows, keys: keys, fallback: entity, model: managedObjectModel)
    }

    /// The rows of ``mergedKeyedRows(entity:predicate:sortCriteria:keys:limit:offset:includesSubentities:affectedStores:)``
    /// handed to `visit` one at a time: streamed from the store when one store answers, so that reading a
    /// million rows does not hold a million rows.
    func visitMergedKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, affectedStores: [PersistentStore]? = nil,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        let stores = try stores(forFetching: entity, includesSubentities: includesSubentities,
            affectedStores: affectedStores)
        if stores.count == 1, let store = stores.first {
            try store.backend.visitKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
                keys: keys, includesSubentities: includesSubentities, model: managedObjectModel, visit: visit)
            return
        }
        for row in try mergedKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys,
            limit: 0, offset: 0, includesSubentities: includesSubentities, affectedStores: affectedStores)
        {
            try visit(row.objectID, row.values)
        }
    }

    /// The number of rows of `entity` matching `predicate` in every store that holds it (or in `affectedStores`);
    /// with a `limit` above zero, counting stops once that many are found.
    func count(
        entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        affectedStores: [PersistentStore]? = nil, limit: Int = 0
    ) throws(ObjectGraphError) -> Int {
        var total = 0
        for store in try stores(forFetching: entity, includesSubentities: includesSubentities,
            affectedStores: affectedStores)
        {
            if limit > 0, total >= limit { break }
            total += try store.backend.count(entity: entity, predicate: predicate,
                includesSubentities: includesSubentities, limit: limit > 0 ? limit - total : 0)
        }
        return total
    }

    /// The identifier of the store that holds (or, unsaved, will hold) the object `objectID`: the store its
    /// permanent ID names, the store it was assigned to, or the first store holding its entity; nil when there
    /// is none.
    func storeIdentifier(intendedFor objectID: ManagedObjectID) -> String? {
        guard objectID.isTemporaryID else { return objectID.storeIdentifier }
        return try? store(for: objectID).identifier
    }
}

/// Adapts a third-party ``IncrementalStore`` to what the coordinator calls: fetches with their parameters
/// spelled out become one ``StoreFetchRequest``; keyed-row reads use the defaults that read whole rows.
final class ForeignStoreBackend: StoreBackend {
    /// The adapted store.
    let store: any IncrementalStore

    init(_ store: any IncrementalStore) {
        self.store = store
    }

    var isReadOnly: Bool { store.isReadOnly }

    func fetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot] { try store.fetch(request) }

    func count(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int { try store.count(request) }

    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate, sortCriteria: sortCriteria,
            fetchLimit: limit, fetchOffset: offset, includesSubentities: includesSubentities))
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, limit: Int)
        throws(ObjectGraphError) -> Int
    {
        try store.count(StoreFetchRequest(entity: entity, predicate: predicate, fetchLimit: limit,
            includesSubentities: includesSubentities, resultShape: .count))
    }

    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try store.rows(for: ids, entity: entity)
    }

    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult { try store.save(request) }

    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        try store.relatedIDs(of: objectID, entity: entity, relationshipIndex: relationshipIndex)
    }

    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        try store.relatedIDs(ofMany: objectIDs, entity: entity, relationshipIndex: relationshipIndex)
    }

    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        try store.allocatePrimaryKeys(for: entity, count: count)
    }

    func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError) { try store.writeMetadata(metadata) }
}

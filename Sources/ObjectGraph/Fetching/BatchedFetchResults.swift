/// The results of a fetch with a ``FetchRequest/fetchBatchSize``: every matching object's ID, in order, and
/// the objects themselves made a batch at a time as they are read — Core Data's batched result array.
///
/// Reading element `i` loads the batch holding it with one store query (rows already in the row cache cost
/// none) and keeps at most ``retainedBatchCount`` batches; when another is needed, the least recently used
/// one is let go and its objects that have no unsaved changes are turned back into faults, so walking a
/// million results keeps memory at a few batches' worth. Like the objects, the collection belongs to its
/// context: use it on the context's queue only.
///
/// ```swift
/// var request = FetchRequest<Person>(entityName: "Person")
/// request.sortCriteria = [SortCriterion("lastName")]
/// request.fetchBatchSize = 50
/// let people = try context.fetchBatched(request)   // one query for the IDs
/// print(people.count, people[12_345].lastName)       // one query for the batch of 50 around 12,345
/// ```
public final class BatchedFetchResults<Result: ManagedObject>: RandomAccessCollection {
    /// Every matching object's ID, in the request's order.
    public let objectIDs: [ManagedObjectID]
    /// How many objects are made at a time.
    public let batchSize: Int
    /// How many batches stay made at once (the least recently read one goes first).
    public let retainedBatchCount: Int
    private weak var context: ManagedObjectContext?
    private var batches: [Int: [Result]] = [:]
    private var recentBatches: [Int] = []

    init(objectIDs: [ManagedObjectID], batchSize: Int, retainedBatchCount: Int, context: ManagedObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = batchSize > 0 ? batchSize : Swift.max(objectIDs.count, 1)
        self.retainedBatchCount = Swift.max(retainedBatchCount, 1)
        self.context = context
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    /// The object at `position`, made (with the rest of its batch) if it is not yet.
    public subscript(position: Int) -> Result {
        precondition(position >= 0 && position < objectIDs.count,
            "Index \(position) is out of range for \(objectIDs.count) batched results.")
        let batch = position / batchSize
        return objects(ofBatch: batch)[position - batch * batchSize]
    }

    /// How many batches are made now.
    public var loadedBatchCount: Int { batches.count }

    private func objects(ofBatch batch: Int) -> [Result] {
        if let loaded = batches[batch] {
            recentBatches.removeAll { $0 == batch }
            recentBatches.append(batch)
            return loaded
        }
        guard let context else {
            preconditionFailure("The context of these batched results is gone; use them while it exists.")
        }
        let ids = Array(objectIDs[(batch * batchSize)..<Swift.min((batch + 1) * batchSize, objectIDs.count)])
        let loaded = context.loadBatch(ids).map { object in
            guard let result = object as? Result else {
                preconditionFailure("\(object.objectID) is a \(type(of: object)), not a \(Result.self) (checked when fetched).")
            }
            return result
        }
        batches[batch] = loaded
        recentBatches.append(batch)
        while recentBatches.count > retainedBatchCount {
            let evicted = recentBatches.removeFirst()
            if let objects = batches.removeValue(forKey: evicted) { context.releaseBatch(objects) }
        }
        return loaded
    }
}

extension ManagedObjectContext {
    /// Fetches `request` as ``BatchedFetchResults``: one query for the matching IDs (with the same pending
    /// changes, order, offset and limit as ``fetch(_:)``), then objects a ``FetchRequest/fetchBatchSize`` at a
    /// time as they are read (all at once when the batch size is 0), keeping at most `retainedBatchCount`
    /// batches made.
    ///
    /// - Throws: what ``fetchObjectIDs(_:)`` throws, and ``ObjectGraphError/resultTypeMismatch(entity:expected:actual:)``
    ///   when the entity's objects are not of class `Result`.
    public func fetchBatched<Result: ManagedObject>(_ request: FetchRequest<Result>, retainedBatchCount: Int = 3)
        throws(ObjectGraphError) -> BatchedFetchResults<Result>
    {
        checkQueue("fetchBatched(_:)")
        let entity = try entity(named: request.entityName)
        let family = request.includesSubentities
            ? persistentStoreCoordinator?.managedObjectModel.entityAndDescendants(of: entity) ?? [entity] : [entity]
        for member in family where !(member.managedObjectClass is Result.Type) {
            throw .resultTypeMismatch(entity: member.name, expected: String(describing: Result.self),
                actual: String(describing: member.managedObjectClass))
        }
        return BatchedFetchResults(objectIDs: try fetchObjectIDs(request), batchSize: request.fetchBatchSize,
            retainedBatchCount: retainedBatchCount, context: self)
    }

    /// The objects `ids`, in order: registered ones as they are, the rest made from their rows, read with one
    /// query per entity; an object whose row is gone comes back as a fault (firing it fails, as in Core Data).
    func loadBatch(_ ids: [ManagedObjectID]) -> [ManagedObject] {
        checkQueue("BatchedFetchResults")
        var wanted: [String: [ManagedObjectID]] = [:]
        for id in ids where registered(id).map({ $0.faultFlag }) ?? true { wanted[id.entityName, default: []].append(id) }
        if let model = persistentStoreCoordinator?.managedObjectModel, let source = try? objectSource() {
            for (entityName, group) in wanted {
                guard let entity = model.entity(named: entityName),
                    let rows = try? source.rows(for: group, entity: entity)
                else { continue }
                for row in rows { _ = materialize(row, entity: model.entity(named: row.objectID.entityName) ?? entity) }
            }
        }
        return ids.map { id in
            if let object = registered(id) { return object }
            guard let fault = try? object(with: id) else {
                preconditionFailure("\(id) names no entity or store of this context (it was fetched from them).")
            }
            return fault
        }
    }

    /// Turns the objects of a batch that was let go back into faults, unless they have unsaved changes —
    /// quietly: their saved state is unchanged, so nothing visible changed and no notification is posted.
    func releaseBatch(_ objects: [ManagedObject]) {
        for object in objects where object.managedObjectContext === self && !object.faultFlag && !object.hasChanges {
            object.willTurnIntoFault()
            object.discardRelationshipChanges()
            let defaults = object.entity.defaultValues
            object.storage = defaults
            object.committed = defaults
            object.becomeFault()
            object.didTurnIntoFault()
        }
    }
}

import Foundation

extension AnyFetchedResultsController {
    /// Batches loaded by a controller without a fetch batch size that still loads lazily (results that
    /// came from the section cache).
    static let defaultLoadingBatchSize = 64
    /// How many recently used batches a batched controller keeps loaded; older ones are released.
    static let retainedBatchCount = 8

    /// The object at a position, loading its batch of rows in one query when it is not loaded yet.
    func objectAtGlobalIndex(_ offset: Int) -> ManagedObject {
        let id = namespaces.id(for: resultID(atGlobalIndex: offset))
        if id.isTemporaryID, let object = temporaryPlacements.object(for: id) { return object }
        let loading = plan.objectLoading
        if let object = managedObjectContext.registered(id), !(loading != .whole && object.isFault) {
            return object
        }
        let size = if case .batches(let size) = loading { size } else { Self.defaultLoadingBatchSize }
        loadBatch(offset / size, size: size, releasing: loading != .whole)
        if let object = managedObjectContext.registered(id) { return object }
        do {
            return try managedObjectContext.object(with: id)
        } catch {
            preconditionFailure("The fetched results hold \(id), whose entity the model does not know: \(error)")
        }
    }

    /// Loads the rows of batch `batch` that are not loaded, one query per entity, and releases the
    /// least recently used batch beyond ``retainedBatchCount`` (objects nothing else holds and that have
    /// no changes are forgotten by the context, as Core Data's batched arrays let them go).
    private func loadBatch(_ batch: Int, size: Int, releasing: Bool) {
        let start = batch * size
        let range = start..<min(start + size, resultCount)
        let context = managedObjectContext
        var wanted: [String: [ManagedObjectID]] = [:]
        for placed in resultIDs(in: range) {
            let id = namespaces.id(for: placed)
            if context.registered(id).map(\.isFault) ?? true { wanted[id.entityName, default: []].append(id) }
        }
        if !wanted.isEmpty, let model = context.persistentStoreCoordinator?.managedObjectModel,
            let source = try? context.objectSource()
        {
            for (entityName, ids) in wanted {
                guard let entity = model.entity(named: entityName),
                    let rows = try? source.rows(for: ids, entity: entity)
                else { continue }
                for row in rows { _ = context.materialize(row, entity: entity) }
            }
        }
        loadedBatches.removeAll { $0 == batch }
        loadedBatches.append(batch)
        guard releasing, loadedBatches.count > Self.retainedBatchCount else { return }
        let evicted = loadedBatches.removeFirst()
        let evictedStart = evicted * size
        guard evictedStart < resultCount else { return }
        let evictedRange = evictedStart..<min(evictedStart + size, resultCount)
        context.releaseUnreferencedObjects(resultIDs(in: evictedRange).map { namespaces.id(for: $0) })
    }
}

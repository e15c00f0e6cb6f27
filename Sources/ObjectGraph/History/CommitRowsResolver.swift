import Foundation

/// The rows of a commit event that did not carry them (a batch request, another writer's transaction), read
/// from the stores once — by the first context that merges the event — and shared by every other context that
/// merges it.
///
/// A read that fails is an error, never "the rows are gone": the merging context keeps the event queued and
/// tries again. Rows that a successful read does not find were deleted since, and merge as deletions.
final class CommitRowsResolver: Sendable {
    let event: StoreCommitEvent
    private let resolved = Locked<ContextDidSave?>(nil)

    init(event: StoreCommitEvent) {
        self.event = event
    }

    /// The event as a did-save with its rows read from `coordinator`'s stores (past the row cache).
    func didSave(reading coordinator: PersistentStoreCoordinator) throws(ObjectGraphError) -> ContextDidSave {
        if let done = resolved.withLock({ $0 }) { return done }
        // (The event's lists: each object once, in one list only.)
        let changes = event.changes
        let rows = try coordinator.currentRows(for: changes.inserted + changes.updated.map(\.id))
        var insertedRows: [RowSnapshot] = []
        var updatedRows: [RowSnapshot] = []
        var gone = Set(changes.deleted)
        for id in changes.inserted {
            if let row = rows[id] { insertedRows.append(row) } else { gone.insert(id) }
        }
        for (id, _) in changes.updated {
            if let row = rows[id] { updatedRows.append(row) } else { gone.insert(id) }
        }
        var save = ContextDidSave(rows: insertedRows + updatedRows, insertedRowCount: insertedRows.count,
            deleted: gone, contextName: event.contextName, sourceContext: ObjectIdentifier(self))
        save.isRemote = event.origin.isRemote
        save.invalidatesAllObjects = event.invalidatesAllObjects
        resolved.withLock { $0 = save }
        return save
    }
}

extension PersistentStoreCoordinator {
    /// The rows of `ids` as the stores hold them now (past the row cache, which another writer's commit makes
    /// stale), by ID; IDs whose rows do not exist are left out. Entities the model does not know are skipped.
    ///
    /// - Throws: the store's error when a read fails — then nothing is known about the missing rows.
    func currentRows(for ids: [ManagedObjectID]) throws(ObjectGraphError) -> [ManagedObjectID: RowSnapshot] {
        let stores = Set(persistentStores.map(\.identifier))
        var byEntity: [String: [ManagedObjectID]] = [:]
        // (Rows of a store removed from the coordinator since cannot be read, nor merged.)
        for id in ids where stores.contains(id.storeIdentifier) { byEntity[id.entityName, default: []].append(id) }
        var result: [ManagedObjectID: RowSnapshot] = [:]
        result.reserveCapacity(ids.count)
        for (name, ids) in byEntity {
            guard let entity = managedObjectModel.entity(named: name) else { continue }
            for row in try rows(for: ids, entity: entity, bypassingCache: true) { result[row.objectID] = row }
        }
        return result
    }
}

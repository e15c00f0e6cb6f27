import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore: BatchRequestStore {
    /// Runs a batch request as one server transaction. Inserts get keys from `Z_PRIMARYKEY`. Updates and deletes
    /// are worked out on a copy of the replica (the in-memory store's semantics, delete rules included), then
    /// written at the versions the rows had: when another client changed one of those rows in between, the copy is
    /// made again from the server's rows and the request tried again (three times at most, then the conflict is
    /// reported).
    public func execute(_ operation: StoreBatchOperation, label: TransactionLabel) throws(ObjectGraphError)
        -> StoreBatchOutcome
    {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        if case .insert(let entity, let nextRow) = operation {
            var rows: [[AttributeValue]] = []
            while let values = try nextRow() { rows.append(values) }
            guard !rows.isEmpty else { return StoreBatchOutcome() }
            return try withLock { () throws(ObjectGraphError) in
                try writer.ensureConnected()
                try reloadIfNeeded()
                let keys = try reserveKeys(for: entity, count: rows.count)
                var request = StoreSaveRequest()
                request.author = label.author
                request.contextName = label.contextName
                for (values, key) in zip(rows, keys) {
                    let id = replicaStorage.objectID(entityName: entity.name, primaryKey: key)
                    request.inserts.append(StoreSaveRequest.Insert(temporaryID: id, entity: entity, values: values,
                        toOne: Array(repeating: nil, count: entity.relationships.count), permanentID: id))
                }
                let result = try transact(request, lists: nil)
                return StoreBatchOutcome(inserted: request.inserts.compactMap(\.permanentID),
                    transactionNumber: result.transactionNumber)
            }
        }
        return try withLock { () throws(ObjectGraphError) in
            try writer.ensureConnected()
            try reloadIfNeeded()
            var attempt = 0
            while true {
                attempt += 1
                let scratch = replicaStorage.copy()
                let outcome = try scratch.execute(operation, label: label)
                guard !outcome.updated.isEmpty || !outcome.deleted.isEmpty else { return outcome }
                var request = StoreSaveRequest()
                request.author = label.author
                request.contextName = label.contextName
                let now = try rowsByID(outcome.updated + outcome.deleted, in: replicaStorage)
                let after = try rowsByID(outcome.updated, in: scratch)
                for id in outcome.updated {
                    guard let entity = model.entity(named: id.entityName), let row = after[id], let current = now[id]
                    else { continue }
                    request.updates.append(StoreSaveRequest.Update(objectID: id, entity: entity, values: row.values,
                        expectedVersion: current.version, toOne: row.toOne))
                }
                for id in outcome.deleted {
                    guard let entity = model.entity(named: id.entityName), let current = now[id] else { continue }
                    request.deletes.append(StoreSaveRequest.Delete(objectID: id, entity: entity,
                        expectedVersion: current.version))
                }
                do throws(ObjectGraphError) {
                    let result = try transact(request, lists: (scratch, scratch.relationshipKeys(differingFrom: replicaStorage)))
                    var committed = outcome
                    committed.transactionNumber = result.transactionNumber
                    return committed
                } catch {
                    // Another client changed a row meanwhile (its rows are now in the replica): work it out again.
                    guard case .mergeConflicts = error, attempt < 3 else { throw error }
                }
            }
        }
    }

    /// The rows of `ids` in `replica`, by ID.
    private func rowsByID(_ ids: [ManagedObjectID], in replica: StoreReplica) throws(ObjectGraphError)
        -> [ManagedObjectID: RowSnapshot]
    {
        var byEntity: [String: [ManagedObjectID]] = [:]
        for id in ids { byEntity[id.entityName, default: []].append(id) }
        var result: [ManagedObjectID: RowSnapshot] = [:]
        for (name, group) in byEntity {
            guard let entity = model.entity(named: name) else { throw .unknownEntity(name) }
            for row in try replica.rows(for: group, entity: entity) { result[row.objectID] = row }
        }
        return result
    }
}

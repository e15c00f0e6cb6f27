import Foundation

extension InMemoryStore {
    /// Runs a batch operation on the rows as one ``commit(_:)`` (for an atomic store: one rewrite of its file),
    /// so that it is one step for every other reader and writer, with the SQLite store's semantics: new keys continue the hierarchy's counter,
    /// every changed row's version goes up once, delete rules are applied by ``BatchDeletePlanner``.
    /// A batch insert's rows are all gathered before the lock is taken (so the handler never runs under it).
    func execute(_ operation: StoreBatchOperation, label: TransactionLabel) throws(ObjectGraphError) -> StoreBatchOutcome {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        switch operation {
        case .insert(let entity, let nextRow):
            var rows: [[AttributeValue]] = []
            while let values = try nextRow() { rows.append(values) }
            let root = root(entity)
            return try commit { state in
                var outcome = StoreBatchOutcome()
                var key = state.maxPrimaryKey[root] ?? 0
                for values in rows {
                    key += 1
                    state.rows[root, default: [:]][key] = Row(entityName: entity.name, values: values, version: 1,
                        toOne: Array(repeating: nil, count: entity.relationships.count))
                    outcome.inserted.append(idNamespaces.id(entityName: entity.name, key: key))
                }
                state.maxPrimaryKey[root] = key
                outcome.transactionNumber = recordHistory(outcome.inserted.map { ($0, .insert, nil, nil) },
                    author: label.author, contextName: label.contextName, in: &state)
                return .success(outcome)
            }
        case .update(let entity, let predicate, let includesSubentities, let values):
            return try commit { state in
                do throws(ObjectGraphError) {
                    let ids = try matchingIDs(entity, predicate, nil, includesSubentities, state)
                    let root = root(entity)
                    for id in ids {
                        guard let key = id.primaryKey, var row = state.rows[root]?[key] else { continue }
                        for (index, value) in values where index < row.values.count { row.values[index] = value }
                        row.version += 1
                        state.rows[root]?[key] = row
                    }
                    var outcome = StoreBatchOutcome(updated: ids)
                    let names = Set(values.compactMap { $0.0 < entity.attributes.count ? entity.attributes[$0.0].name : nil })
                    outcome.transactionNumber = recordHistory(ids.map { ($0, .update, names, nil) },
                        author: label.author, contextName: label.contextName, in: &state)
                    return .success(outcome)
                } catch {
                    return .failure(error)
                }
            }
        case .delete(let entity, let predicate, let objectIDs, let includesSubentities):
            return try commit { state in
                do throws(ObjectGraphError) {
                    let ids = try matchingIDs(entity, predicate, objectIDs, includesSubentities, state)
                    let planner = BatchDeletePlanner(model: model, storeIdentifier: identifier, entityName: entity.name)
                    let plan = try planner.plan(deleting: ids, in: InMemoryBatchGraph(store: self, state: state))
                    let tombstones = recordsHistory ? plan.deleted.map { id in
                        model.entity(named: id.entityName).flatMap { entity in
                            id.primaryKey.flatMap { tombstone(of: entity, key: $0, in: state) }
                        }
                    } : []
                    apply(plan, to: &state)
                    var outcome = StoreBatchOutcome(updated: plan.updated, deleted: plan.deleted)
                    outcome.transactionNumber = recordHistory(
                        plan.updated.map { ($0, .update, nil, nil) } + zip(plan.deleted, tombstones).map { ($0, .delete, nil, $1) },
                        author: label.author, contextName: label.contextName, in: &state)
                    return .success(outcome)
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// The IDs (named by their concrete entity, in key order) of the rows a predicate or a list of IDs picks.
    private func matchingIDs(
        _ entity: EntityDescription, _ predicate: FetchPredicate?, _ objectIDs: [ManagedObjectID]?,
        _ includesSubentities: Bool, _ state: State
    ) throws(ObjectGraphError) -> [ManagedObjectID] {
        let root = root(entity)
        let wanted = Set(includesSubentities ? model.entityAndDescendants(of: entity).map(\.name) : [entity.name])
        if let objectIDs {
            var seen = Set<Int64>()
            return objectIDs.compactMap { id in
                guard id.storeIdentifier == identifier, let key = id.primaryKey, seen.insert(key).inserted,
                    let row = state.rows[root]?[key], wanted.contains(row.entityName)
                else { return nil }
                return idNamespaces.id(entityName: row.entityName, key: key)
            }
        }
        do {
            try predicate?.validate(for: entity, in: model)
        } catch {
            throw .predicate(error)
        }
        return matchingSubjects(root: root, wanted: wanted, predicate: predicate, in: state)
            .map(\.id).sorted { $0.precedes($1) }
    }

    /// Writes a delete plan into `state`.
    private func apply(_ plan: BatchDeletePlan, to state: inout State) {
        for (id, relationshipIndex) in plan.clearedToOne {
            guard let entity = model.entity(named: id.entityName), let key = id.primaryKey,
                var row = state.rows[root(entity)]?[key], relationshipIndex < row.toOne.count
            else { continue }
            row.toOne[relationshipIndex] = nil
            state.rows[root(entity)]?[key] = row
        }
        for id in plan.updated {
            guard let entity = model.entity(named: id.entityName), let key = id.primaryKey else { continue }
            state.rows[root(entity)]?[key]?.version += 1
        }
        for id in plan.deleted {
            guard let entity = model.entity(named: id.entityName), let key = id.primaryKey else { continue }
            for (index, relationship) in entity.relationships.enumerated() where relationship.isToMany {
                let joinKey = Self.joinKey(entity, index, key)
                // Many-to-many lists are kept on both sides: take the deleted object out of its partners' lists.
                if let members = state.joins[joinKey], let inverseName = relationship.inverseName {
                    for member in members {
                        guard let destination = model.entity(named: member.entityName), let memberKey = member.primaryKey,
                            let inverse = destination.relationships.firstIndex(where: { $0.name == inverseName })
                        else { continue }
                        state.joins[Self.joinKey(destination, inverse, memberKey)]?.removeAll { $0.primaryKey == key }
                    }
                }
                state.joins[joinKey] = nil
                state.joins[joinKey + "#order"] = nil
            }
            state.rows[root(entity)]?[key] = nil
        }
    }
}

/// The in-memory store's relationships, read from one state under the store's lock.
private struct InMemoryBatchGraph: BatchDeleteGraph {
    let store: InMemoryStore
    let state: InMemoryStore.State

    func toOneDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: ManagedObjectID]
    {
        var result: [ManagedObjectID: ManagedObjectID] = [:]
        let root = store.root(entity)
        for id in ids {
            guard let key = id.primaryKey, let row = state.rows[root]?[key], index < row.toOne.count,
                let destination = row.toOne[index]
            else { continue }
            result[id] = destination
        }
        return result
    }

    func toManyDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in ids {
            let related = try store.relatedIDs(of: id, entity: entity, relationshipIndex: index, in: state)
            if !related.isEmpty { result[id] = related }
        }
        return result
    }
}

/// Reads relationships for planning a batch delete, inside the delete's transaction (so nothing changes
/// between planning and deleting). Every ID passed is of the concrete entity given.
protocol BatchDeleteGraph {
    /// The destination of to-one relationship `relationshipIndex` of each of `ids` that has one.
    func toOneDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: ManagedObjectID]
    /// The destinations of to-many relationship `relationshipIndex` of each of `ids`.
    func toManyDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
}

/// What a batch delete writes, worked out from the delete rules before anything is written.
struct BatchDeletePlan {
    /// Every object to delete: the request's, then those cascades reach, each once.
    var deleted: [ManagedObjectID] = []
    /// Surviving objects whose relationships the deletion changes (each once); their versions go up.
    var updated: [ManagedObjectID] = []
    /// Surviving objects whose to-one relationship `relationshipIndex` (of their own entity) pointed at a
    /// deleted object and must be cleared in their row.
    var clearedToOne: [(id: ManagedObjectID, relationshipIndex: Int)] = []
}

/// Applies delete rules to a set of objects, breadth first, the way a context's delete propagation does
/// — cascade, nullify, deny, no action — but on IDs read from the store, so no object is made.
struct BatchDeletePlanner {
    let model: ManagedObjectModel
    /// The store the delete runs in: a rule reaching an object of another store is refused.
    let storeIdentifier: String
    /// The request's entity, for errors.
    let entityName: String

    /// A row's identity whatever entity name an ID gives it (a hierarchy shares one key space).
    private struct RowKey: Hashable {
        let root: String
        let key: Int64
    }

    private func rowKey(_ id: ManagedObjectID) -> RowKey {
        let root = model.entity(named: id.entityName).map { model.rootEntity(of: $0).name } ?? id.entityName
        return RowKey(root: root, key: id.primaryKey ?? -1)
    }

    /// Plans the deletion of `roots` (IDs naming their concrete entities).
    ///
    /// - Throws: ``ObjectGraphError/deleteDenied(objectID:relationship:)`` when a deny rule meets a
    ///   destination that is not deleted too, ``ObjectGraphError/batchRequestRefused(entity:reason:)`` when a
    ///   rule reaches another store, or the graph's read errors.
    func plan(deleting roots: [ManagedObjectID], in graph: some BatchDeleteGraph) throws(ObjectGraphError)
        -> BatchDeletePlan
    {
        var plan = BatchDeletePlan()
        var deleted = Set<RowKey>()
        var frontier: [ManagedObjectID] = []
        for id in roots where deleted.insert(rowKey(id)).inserted { frontier.append(id) }
        plan.deleted = frontier
        var denied: [(owner: ManagedObjectID, relationship: String, destination: ManagedObjectID)] = []
        var nullified: [(destination: ManagedObjectID, inverseName: String)] = []
        while !frontier.isEmpty {
            var next: [ManagedObjectID] = []
            var byEntity: [String: [ManagedObjectID]] = [:]
            for id in frontier { byEntity[id.entityName, default: []].append(id) }
            for (entityName, ids) in byEntity.sorted(by: { $0.key < $1.key }) {
                guard let entity = model.entity(named: entityName) else { throw .unknownEntity(entityName) }
                for (index, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
                    if relationship.deleteRule == .noAction { continue }
                    if relationship.deleteRule == .nullify && relationship.inverseName == nil { continue }
                    let destinations: [ManagedObjectID: [ManagedObjectID]] = relationship.isToMany
                        ? try graph.toManyDestinations(of: ids, entity: entity, relationshipIndex: index)
                        : try graph.toOneDestinations(of: ids, entity: entity, relationshipIndex: index).mapValues { [$0] }
                    for owner in ids {
                        for destination in destinations[owner] ?? [] {
                            guard destination.storeIdentifier == storeIdentifier else {
                                throw .batchRequestRefused(entity: entityName,
                                    reason: "the \(relationship.deleteRule) rule of \(entity.name).\(relationship.name) "
                                        + "reaches \(destination), which lives in another store")
                            }
                            switch relationship.deleteRule {
                            case .cascade:
                                if deleted.insert(rowKey(destination)).inserted {
                                    next.append(destination)
                                    plan.deleted.append(destination)
                                }
                            case .deny:
                                denied.append((owner, relationship.name, destination))
                            case .nullify:
                                if let inverse = relationship.inverseName { nullified.append((destination, inverse)) }
                            case .noAction:
                                break
                            }
                        }
                    }
                }
            }
            frontier = next
        }
        // Deny holds only for destinations that survive (a destination deleted as well leaves nothing behind).
        if let refusal = denied.first(where: { !deleted.contains(rowKey($0.destination)) }) {
            throw .deleteDenied(objectID: refusal.owner, relationship: refusal.relationship)
        }
        var updated = Set<RowKey>()
        for (destination, inverseName) in nullified where !deleted.contains(rowKey(destination)) {
            guard let entity = model.entity(named: destination.entityName),
                let inverseIndex = entity.relationships.firstIndex(where: { $0.name == inverseName })
            else { continue }
            if !entity.relationships[inverseIndex].isToMany {
                plan.clearedToOne.append((destination, inverseIndex))
            }
            if updated.insert(rowKey(destination)).inserted { plan.updated.append(destination) }
        }
        return plan
    }
}

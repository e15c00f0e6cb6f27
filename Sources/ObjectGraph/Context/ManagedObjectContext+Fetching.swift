import Foundation

extension ManagedObjectContext {
    /// Fetches the objects `request` describes, in its order.
    ///
    /// Rows come from the store; objects already registered in this context are returned as they are in
    /// memory (with their unsaved changes). With `includesPendingChanges` (the default), unsaved inserts
    /// that match are included, unsaved deletes left out, and unsaved updates re-evaluated and re-sorted —
    /// with the same predicate and order semantics the store uses in SQL.
    ///
    /// - Throws: ``ObjectGraphError`` for an unknown entity or key, a predicate that does not compile, a
    ///   store error, or objects that are not of class `Result`.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws(ObjectGraphError) -> [Result] {
        checkQueue("fetch(_:)")
        let entity = try entity(named: request.entityName)
        let source = try objectSource()
        let pendingObjects = request.includesPendingChanges
            ? pendingObjects(of: entity, includesSubentities: request.includesSubentities, in: request.affectedStores)
            : []
        let needsMemoryPass = !pendingObjects.isEmpty
        let rows = try source.fetch(
            entity: entity, predicate: request.predicate, sortCriteria: request.sortCriteria,
            limit: needsMemoryPass ? 0 : request.fetchLimit, offset: needsMemoryPass ? 0 : request.fetchOffset,
            includesSubentities: request.includesSubentities, stores: request.affectedStores)
        var objects = materialize(rows, entity: entity, asFault: request.returnsObjectsAsFaults,
            withValues: request.includesPropertyValues)
        prefetch(request.relationshipKeyPathsForPrefetching, for: objects)

        if needsMemoryPass {
            let changed = Set(pendingObjects.map(ObjectIdentifier.init))
            objects.removeAll { $0.deletedFlag || changed.contains(ObjectIdentifier($0)) }
            for object in pendingObjects where !object.deletedFlag {
                if let predicate = request.predicate, !predicate.evaluate(with: object) { continue }
                objects.append(object)
            }
            let ordering = RowOrdering(criteria: request.sortCriteria)
            let keyed = objects.map { object in (ordering.sortKeys(for: object), object) }
            objects = keyed.sorted { ordering.precedes($0.0, $0.1.objectID, $1.0, $1.1.objectID) }.map(\.1)
            let start = min(max(request.fetchOffset, 0), objects.count)
            let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, objects.count) : objects.count
            objects = Array(objects[start..<end])
        }
        // Every object is a ManagedObject: a request for that class needs no per-object cast.
        if Result.self == ManagedObject.self, let untyped = objects as Any as? [Result] { return untyped }
        var typed: [Result] = []
        typed.reserveCapacity(objects.count)
        for object in objects {
            guard let result = object as? Result else {
                throw .resultTypeMismatch(
                    entity: entity.name, expected: String(describing: Result.self),
                    actual: String(describing: type(of: object)))
            }
            typed.append(result)
        }
        return typed
    }

    /// The number of objects `request` would fetch, counted in the store when there are no pending changes
    /// of its entity. With a `fetchLimit` the store stops counting at offset plus limit, so a count with a
    /// limit of one is a cheap test of whether anything matches. With pending changes, the store's matching
    /// IDs are read (no objects made) and the unsaved objects judged in memory, as a fetch would.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws(ObjectGraphError) -> Int {
        checkQueue("count(for:)")
        let entity = try entity(named: request.entityName)
        let offset = max(request.fetchOffset, 0)
        let pending = request.includesPendingChanges
            ? pendingObjects(of: entity, includesSubentities: request.includesSubentities, in: request.affectedStores)
            : []
        var count: Int
        if pending.isEmpty {
            count = try objectSource().count(entity: entity, predicate: request.predicate,
                includesSubentities: request.includesSubentities, stores: request.affectedStores,
                limit: request.fetchLimit > 0 ? offset + request.fetchLimit : 0)
        } else {
            count = try countWithPending(pending, entity: entity, predicate: request.predicate,
                includesSubentities: request.includesSubentities, stores: request.affectedStores)
        }
        count = max(0, count - offset)
        return request.fetchLimit > 0 ? min(count, request.fetchLimit) : count
    }

    /// The IDs `request` fetches with the unsaved `pending` objects joined in: the store's rows are read as IDs
    /// and sort keys only (no objects made), the pending objects judged in memory, and everything put in the
    /// order a fetch gives. Nil when a sort key is not a stored attribute of every fetched entity (a key path:
    /// then objects are needed to read it).
    private func objectIDsWithPending(
        _ pending: [ManagedObject], request: FetchRequest<some ManagedObject>, entity: EntityDescription
    ) throws(ObjectGraphError) -> [ManagedObjectID]? {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { throw .noCoordinator(context: description) }
        let criteria = request.sortCriteria
        let keys = criteria.map(\.key)
        let entities = request.includesSubentities ? model.entityAndDescendants(of: entity) : [entity]
        guard entities.allSatisfy({ fetched in keys.allSatisfy { fetched.attributeIndex(named: $0) != nil } }) else {
            return nil
        }
        let ordering = RowOrdering(criteria: criteria)
        let pendingIDs = Set(pending.map(\.objectID))
        var rows: [(keys: [AttributeValue], id: ManagedObjectID)] = []
        try objectSource().visitKeyedRows(entity: entity, predicate: request.predicate, sortCriteria: criteria,
            keys: keys, includesSubentities: request.includesSubentities, stores: request.affectedStores, model: model)
        { id, values throws(ObjectGraphError) in
            guard !pendingIDs.contains(id) else { return }
            rows.append((zip(criteria, values).map { $0.sortKey(for: $1) }, id))
        }
        for object in pending where !object.deletedFlag && (request.predicate?.evaluate(with: object) ?? true) {
            rows.append((ordering.sortKeys(for: object), object.objectID))
        }
        // (The store's rows arrive in order: sorting them with the unsaved ones appended costs little more than
        // placing those.)
        rows.sort { ordering.precedes($0.keys, $0.id, $1.keys, $1.id) }
        let start = min(max(request.fetchOffset, 0), rows.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, rows.count) : rows.count
        return rows[start..<end].map(\.id)
    }

    /// The stored rows matching `predicate` that are not among the unsaved `pending` objects (their IDs read,
    /// nothing decoded), plus the pending objects that are not deleted and match in memory: what a fetch with
    /// pending changes would return, without making an object per row. When every pending object is new (none
    /// has a stored row to leave out), the store counts its rows itself.
    private func countWithPending(
        _ pending: [ManagedObject], entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> Int {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { throw .noCoordinator(context: description) }
        let inMemory = pending.count { !$0.deletedFlag && (predicate?.evaluate(with: $0) ?? true) }
        if pending.allSatisfy(\.insertedFlag) {
            return try objectSource().count(entity: entity, predicate: predicate,
                includesSubentities: includesSubentities, stores: stores, limit: 0) + inMemory
        }
        let pendingIDs = Set(pending.map(\.objectID))
        var stored = 0
        try objectSource().visitKeyedRows(entity: entity, predicate: predicate, sortCriteria: [], keys: [],
            includesSubentities: includesSubentities, stores: stores, model: model)
        { id, _ throws(ObjectGraphError) in
            if !pendingIDs.contains(id) { stored += 1 }
        }
        return stored + inMemory
    }

    /// The object for `objectID`, loaded from the store if it is not registered; never a fault.
    ///
    /// - Throws: ``ObjectGraphError/objectNotInContext(_:)`` when no such row exists.
    public func existingObject(with objectID: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        checkQueue("existingObject(with:)")
        if let object = registered(objectID), !object.faultFlag { return object }
        let entity = try entity(named: objectID.entityName)
        guard let row = try objectSource().rows(for: [objectID], entity: entity).first else {
            throw .objectNotInContext(objectID)
        }
        return materialize(row, entity: entity)
    }

    /// The IDs of the objects `request` describes, in its order, without making objects for them (Core Data's
    /// `.managedObjectIDResultType`).
    public func fetchObjectIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws(ObjectGraphError)
        -> [ManagedObjectID]
    {
        checkQueue("fetchObjectIDs(_:)")
        let entity = try entity(named: request.entityName)
        let pending = request.includesPendingChanges
            ? pendingObjects(of: entity, includesSubentities: request.includesSubentities, in: request.affectedStores)
            : []
        if !pending.isEmpty {
            if let ids = try objectIDsWithPending(pending, request: request, entity: entity) { return ids }
            return try fetch(request).map(\.objectID)
        }
        guard let model = persistentStoreCoordinator?.managedObjectModel else { throw .noCoordinator(context: description) }
        return try objectSource().fetchKeyedRows(
            entity: entity, predicate: request.predicate, sortCriteria: request.sortCriteria, keys: [],
            limit: request.fetchLimit, offset: request.fetchOffset, includesSubentities: request.includesSubentities,
            stores: request.affectedStores, model: model
        ).map(\.objectID)
    }

    /// The registered objects for fetched `rows` of `entity` (or of its sub-entities, which the rows name), in
    /// order; see ``materialize(_:entity:asFault:withValues:)``.
    private func materialize(_ rows: [RowSnapshot], entity: EntityDescription, asFault: Bool, withValues: Bool)
        -> [ManagedObject]
    {
        let model = persistentStoreCoordinator?.managedObjectModel
        // Room for every row at once, so the uniquing table grows once rather than doubling its way up.
        registry.reserveCapacity(registry.count + rows.count)
        var objects: [ManagedObject] = []
        objects.reserveCapacity(rows.count)
        // Only an entity with sub-entities has rows of other entities; then look the entity up when the name
        // changes.
        let mixed = model.map { !$0.subentities(of: entity).isEmpty } ?? false
        var rowEntity = entity
        var rowEntityName = entity.name
        // Through the buffer, so that each row is lent to materialize rather than copied out of the array.
        rows.withUnsafeBufferPointer { rows in
            for index in rows.indices {
                if mixed, rows[index].objectID.entityName != rowEntityName {
                    rowEntity = model?.entity(named: rows[index].objectID.entityName) ?? entity
                    rowEntityName = rowEntity.name
                }
                objects.append(materialize(rows[index], entity: rowEntity, asFault: asFault, withValues: withValues))
            }
        }
        return objects
    }

    /// Loads the destinations of to-one relationships `keys` of `objects` with one store query per
    /// relationship (and to-many ones with one query per object), so later access fires no faults.
    private func prefetch(_ keys: [String], for objects: [ManagedObject]) {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        for key in keys {
            var wanted: [String: [ManagedObjectID]] = [:]
            for object in objects {
                guard let index = object.entity.relationships.firstIndex(where: { $0.name == key }) else { continue }
                if object.entity.relationships[index].isToMany {
                    continue  // loaded below, for all objects at once
                } else if let id = object.storedToOne[index], registry[id].map({ $0.faultFlag }) ?? true {
                    wanted[id.entityName, default: []].append(id)
                }
            }
            prefetchToMany(key, for: objects, into: &wanted)
            for (entityName, ids) in wanted {
                guard let entity = model.entity(named: entityName), let source = try? objectSource(),
                    let rows = try? source.rows(for: Array(Set(ids)), entity: entity)
                else { continue }
                for row in rows { _ = materialize(row, entity: entity) }
            }
        }
    }

    /// Loads to-many relationship `key` of every object that has it unloaded, with one store query per
    /// entity, and adds the destinations that still need their rows to `wanted`.
    private func prefetchToMany(_ key: String, for objects: [ManagedObject], into wanted: inout [String: [ManagedObjectID]]) {
        var owners: [String: [ManagedObject]] = [:]
        for object in objects where !object.insertedFlag {
            guard let index = object.entity.relationships.firstIndex(where: { $0.name == key }),
                object.entity.relationships[index].isToMany, case .fault = object.relationshipSlots[index]
            else { continue }
            owners[object.entity.name, default: []].append(object)
        }
        for (_, group) in owners {
            guard let entity = group.first?.entity,
                let index = entity.relationships.firstIndex(where: { $0.name == key }),
                let source = try? objectSource(),
                let related = try? source.relatedIDs(ofMany: group.map(\.objectID), entity: entity,
                    relationshipIndex: index)
            else { continue }
            for owner in group {
                let ids = related[owner.objectID] ?? []
                var members = RelatedObjects(ids.compactMap { try? object(with: $0) })
                if entity.relationships[index].inverseName == nil || owner.isManyToMany(index) { owner.storedToMany[index] = ids }
                reconcile(&members, of: owner, relationshipIndex: index)
                owner.relationshipSlots[index] = .toMany(members)
                for member in members.items where member.faultFlag && !member.faultHoldsValues {
                    wanted[member.entity.name, default: []].append(member.objectID)
                }
            }
        }
    }

    func entity(named name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        guard let entity = coordinator.managedObjectModel.entity(named: name) else { throw .unknownEntity(name) }
        return entity
    }

    /// Unsaved inserted, updated and deleted objects of `entity` (and of its sub-entities, if asked), of
    /// `stores` when given (an unsaved object counts as in the store it will be saved to).
    func pendingObjects(of entity: EntityDescription, includesSubentities: Bool, in stores: [PersistentStore]?)
        -> [ManagedObject]
    {
        let names = includesSubentities
            ? Set(persistentStoreCoordinator?.managedObjectModel.entityAndDescendants(of: entity).map(\.name) ?? [entity.name])
            : [entity.name]
        var result: [ManagedObject] = []
        for objects in [insertedObjectsByIdentity, updatedObjectsByIdentity, deletedObjectsByIdentity] {
            for object in objects.values where names.contains(object.entity.name) && isInStores(object, stores) {
                result.append(object)
            }
        }
        return result
    }

    /// Whether `object` is held by one of `stores` (always, for nil): the store its permanent ID names, or for an
    /// unsaved object the store it will be saved to.
    func isInStores(_ object: ManagedObject, _ stores: [PersistentStore]?) -> Bool {
        guard let stores else { return true }
        guard let identifier = persistentStoreCoordinator?.storeIdentifier(intendedFor: object.objectID) else {
            return false
        }
        return stores.contains { $0.identifier == identifier }
    }
}

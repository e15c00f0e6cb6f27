import Foundation
import SQLiteStorage

extension ManagedObjectContext {
    /// Writes every unsaved insert, update and delete to the store in one transaction.
    ///
    /// In order: pending changes are processed, ``ManagedObject/willSave()`` is called on changed objects,
    /// objects are validated (non-optional attributes must have values), and the store applies everything
    /// at once — checking that no saved object changed underneath (optimistic locking). Inserted objects
    /// then get permanent IDs, ``ManagedObject/didSave()`` is called, and observers receive a
    /// ``ContextDidSave``.
    ///
    /// If anything fails, the store is left as it was and the context keeps every change (and every
    /// temporary ID), so nothing is lost and the save can be retried.
    ///
    /// Saved objects that nothing outside the context holds are then let go, as Core Data's weakly held
    /// registrations are: they come back as faults when asked for, so a context that saves a long import —
    /// the view context of a nested stack, which every import batch passes through — does not keep every
    /// object it ever saved.
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)``, ``ObjectGraphError/mergeConflicts(_:)``, or a store error.
    public func save() throws(ObjectGraphError) {
        let saved = try writeChanges()
        // Controllers take the saved objects' permanent IDs before `save()` returns.
        deliverObjectIDChanges()
        // (After `writeChanges` returned: its arrays of the saved objects no longer hold them.)
        releaseUnreferencedObjects(saved)
    }

    /// ``save()`` up to letting the saved objects go; returns the IDs of the inserted and updated objects it
    /// saved.
    private func writeChanges() throws(ObjectGraphError) -> [ManagedObjectID] {
        checkQueue("save()")
        processPendingChanges()
        guard hasChanges else { return [] }
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        notifyWillSave()

        // Primary keys are handed out in insertion order, so objects keep their tie-break order when their
        // temporary IDs become permanent.
        for object in Array(insertedObjectsByIdentity.values) + Array(updatedObjectsByIdentity.values) {
            object.willSave()
        }
        processPendingChanges()
        var inserted = insertedObjectsInOrder()
        var updated = Array(updatedObjectsByIdentity.values)
        var deleted = Array(deletedObjectsByIdentity.values)
        try validate(inserted: inserted, updated: updated, deleted: deleted)
        if let parent {
            try saveIntoParent(parent, inserted: inserted, updated: updated, deleted: deleted)
            return (inserted + updated).map(\.objectID)
        }

        // Conflicts with the store are resolved by the merge policy and the save tried again (a few times:
        // other contexts may keep changing the same rows); with the default `.error` policy they are thrown.
        var request = try resolvedSaveRequest(&inserted, &updated, &deleted)
        var attempts = 0
        let result: StoreSaveResult
        while true {
            do {
                result = try coordinator.save(request, source: ObjectIdentifier(self))
                break
            } catch {
                attempts += 1
                if case .sqlite(let failure) = error, failure.extendedCode == SQLiteError.constraintUnique,
                    mergePolicy != .error, attempts <= Self.maximumConflictRetries
                {
                    // Another context inserted the same unique values meanwhile: resolve again.
                    request = try resolvedSaveRequest(&inserted, &updated, &deleted)
                    continue
                }
                if case .uniqueConstraintViolated = error, attempts <= Self.maximumConflictRetries {
                    // Another client of a shared store committed the same unique values after the check: resolve
                    // again, now seeing its row (merged by the policy, or with `.error` reported as a constraint
                    // conflict, as when the row was there before the save).
                    request = try resolvedSaveRequest(&inserted, &updated, &deleted)
                    continue
                }
                guard case .mergeConflicts(let conflicts) = error else { throw error }
                let detailed = describe(conflicts, coordinator: coordinator)
                guard mergePolicy != .error, attempts <= Self.maximumConflictRetries else {
                    throw .mergeConflicts(detailed)
                }
                resolve(detailed, coordinator: coordinator)
                inserted = insertedObjectsInOrder()
                updated = Array(updatedObjectsByIdentity.values)
                deleted = Array(deletedObjectsByIdentity.values)
                request = saveRequest(inserted: inserted, updated: updated, deleted: deleted)
            }
        }

        // The store committed: from here on nothing can fail.
        // Saved objects and the values they now hold; their snapshots are made once their relationships are
        // recorded, below.
        var saved: [(object: ManagedObject, values: [AttributeValue])] = []
        saved.reserveCapacity(inserted.count + updated.count)
        var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
        permanentIDs.reserveCapacity(inserted.count)
        for (object, insert) in zip(inserted, request.inserts) {
            guard let permanent = result.permanentIDs[object.objectID] else { continue }
            if object.objectID.isTemporaryID {
                permanentIDs[object.objectID] = permanent
            }
            registry[object.objectID] = nil
            object.objectID = permanent
            registry[permanent] = object
            object.markSaved()
            let external = result.externalValues.isEmpty ? nil : result.externalValues[permanent]
            let values = object.adoptExternalReferences(external, saved: insert.values)
            object.markValuesSaved(values, version: result.versions[permanent] ?? 1)
            saved.append((object, values))
        }
        let insertedCount = saved.count
        for (object, update) in zip(updated, request.updates) {
            let external = result.externalValues.isEmpty ? nil : result.externalValues[object.objectID]
            let values = object.adoptExternalReferences(external, saved: update.values)
            object.markValuesSaved(values, version: result.versions[object.objectID] ?? object.rowVersion + 1)
            saved.append((object, values))
        }
        var deletedIDs: Set<ManagedObjectID> = []
        for object in deleted {
            registry[object.objectID] = nil
            deletedIDs.insert(object.objectID)
        }
        // Kept for the next batch of inserts: a context that saved this many objects will likely insert as many.
        insertedObjectsByIdentity.removeAll(keepingCapacity: true)
        updatedObjectsByIdentity.removeAll()
        deletedObjectsByIdentity.removeAll()
        // Now that every inserted object has its permanent ID, record what the store holds.
        for object in inserted + updated { recordStoredRelationships(object) }
        // The store's rows, which the coordinator built for its commit event, when they are these objects' rows.
        let rows: [RowSnapshot]
        if let committed = result.committedRows, committed.count == saved.count,
            zip(committed, saved).allSatisfy({ $0.objectID == $1.object.objectID })
        {
            rows = committed
        } else {
            rows = saved.map { object, values in
                RowSnapshot(objectID: object.objectID, values: values, version: object.rowVersion, toOne: object.storedToOne)
            }
        }
        for object in inserted + updated { object.didSave() }
        for object in deleted {
            object.didSave()
            object.managedObjectContext = nil
        }
        publishPermanentIDs(permanentIDs)
        notifyDidSave(
            ContextDidSave(
                rows: rows, insertedRowCount: insertedCount, deleted: deletedIDs, contextName: name,
                sourceContext: ObjectIdentifier(self),
                permanentIDs: permanentIDs))
        return (inserted + updated).map(\.objectID)
    }

    /// Resolves uniqueness conflicts, then gives the (possibly changed) objects to save and their request.
    private func resolvedSaveRequest(
        _ inserted: inout [ManagedObject], _ updated: inout [ManagedObject], _ deleted: inout [ManagedObject]
    ) throws(ObjectGraphError) -> StoreSaveRequest {
        if try resolveUniquenessConflicts() {
            inserted = insertedObjectsInOrder()
            updated = Array(updatedObjectsByIdentity.values)
            deleted = Array(deletedObjectsByIdentity.values)
        }
        return saveRequest(inserted: inserted, updated: updated, deleted: deleted)
    }

    /// The store's view of a save: rows to insert, update and delete, and relationship changes.
    private func saveRequest(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject])
        -> StoreSaveRequest
    {
        var request = StoreSaveRequest()
        request.author = transactionAuthor
        request.contextName = name
        for object in inserted {
            // An object given its permanent ID ahead of the save (obtainPermanentIDs) keeps it.
            request.inserts.append(.init(temporaryID: object.objectID, entity: object.entity,
                values: persistentValues(object), toOne: toOneForSave(object),
                permanentID: object.objectID.isTemporaryID ? nil : object.objectID))
            // Only changed relationships have join-table or order changes.
            if !object.changedRelationships.isEmpty {
                request.joinChanges += joinChanges(for: object)
                request.orderChanges += orderChanges(for: object)
            }
        }
        for object in updated {
            request.updates.append(.init(objectID: object.objectID, entity: object.entity,
                values: persistentValues(object), expectedVersion: object.rowVersion, toOne: toOneForSave(object),
                changedProperties: (object.changedAttributes, object.changedRelationships)))
            request.joinChanges += joinChanges(for: object)
            request.orderChanges += orderChanges(for: object)
        }
        for object in deleted {
            request.deletes.append(.init(objectID: object.objectID, entity: object.entity, expectedVersion: object.rowVersion))
        }
        return request
    }

    /// Values as the store keeps them: transient attributes are never saved.
    func persistentValues(_ object: ManagedObject) -> [AttributeValue] {
        var values = object.storage
        let entity = object.entity
        guard entity.persistentAttributeIndexes.count != entity.attributeKinds.count else { return values }
        for index in entity.attributeKinds.indices where entity.attributeKinds[index].isTransient {
            values[index] = .null
        }
        return values
    }

    /// Gives `objects` their permanent IDs now instead of at the next save (Core Data's
    /// `obtainPermanentIDs(for:)`), for example to pass their IDs to another context or keep their URIs.
    ///
    /// The store reserves the primary keys at once; the objects stay inserted until saved, and the save
    /// writes them under these IDs. Objects that already have permanent IDs, or that are not inserted in
    /// this context, are left alone. Children of this context follow the new IDs.
    ///
    /// - Throws: a store error (for example a read-only store); the objects then keep their temporary IDs.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ObjectGraphError) {
        checkQueue("obtainPermanentIDs(for:)")
        let wanted = objects.filter { $0.managedObjectContext === self && $0.insertedFlag && $0.objectID.isTemporaryID }
        guard !wanted.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        let mapping = try coordinator.obtainPermanentIDs(for: wanted.map { ($0.objectID, $0.entity) })
        var adopted: [ManagedObjectID: ManagedObjectID] = [:]
        for object in wanted {
            guard let permanent = mapping[object.objectID] else { continue }
            adopted[object.objectID] = permanent
            registry[object.objectID] = nil
            object.objectID = permanent
            registry[permanent] = object
        }
        publishPermanentIDs(adopted)
    }

    /// Runs the checks ``save()`` makes — every changed object's `validateForInsert`, `validateForUpdate`
    /// or `validateForDelete` — without saving, so an app can tell the user at once (for example before
    /// handing the save to a queue that writes later).
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)`` with every failure together.
    public func validatePendingChanges() throws(ObjectGraphError) {
        checkQueue("validatePendingChanges()")
        processPendingChanges()
        try validate(inserted: Array(insertedObjectsByIdentity.values), updated: Array(updatedObjectsByIdentity.values),
            deleted: Array(deletedObjectsByIdentity.values))
    }

    /// Every object's own checks (overridable), all failures collected into one error.
    private func validate(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject])
        throws(ObjectGraphError)
    {
        var failures: [ValidationFailure] = []
        func collect(_ check: () throws(ObjectGraphError) -> Void) throws(ObjectGraphError) {
            do {
                try check()
            } catch {
                guard case .validation(let found) = error else { throw error }
                failures += found
            }
        }
        for object in inserted { try collect { () throws(ObjectGraphError) in try object.validateForInsert() } }
        for object in updated { try collect { () throws(ObjectGraphError) in try object.validateForUpdate() } }
        for object in deleted { try collect { () throws(ObjectGraphError) in try object.validateForDelete() } }
        if !failures.isEmpty { throw .validation(failures) }
    }

    /// The inserted objects in the order they were inserted (temporary keys grow with each insert), so
    /// primary keys are handed out in that order. The keys are read once before sorting: reading
    /// `objectID` inside the comparison costs a retain and an exclusivity check per comparison.
    func insertedObjectsInOrder() -> [ManagedObject] {
        var keyed: [(key: Int64, object: ManagedObject)] = []
        keyed.reserveCapacity(insertedObjectsByIdentity.count)
        for object in insertedObjectsByIdentity.values { keyed.append((object.objectID.key, object)) }
        keyed.sort { $0.key < $1.key }
        return keyed.map(\.object)
    }
}

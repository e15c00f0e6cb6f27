import Foundation

/// Child contexts: saving into the parent, and the parent answering its children.
///
/// A child's save copies its inserted, updated and deleted objects into the parent's objects (which become
/// the parent's unsaved changes) and touches no disk. When both changed the same object, the child's save
/// wins for the properties it changed (last writer wins, as in Core Data); an object the parent had deleted
/// and a child then saves changes to is there again, with the child's values.
extension ManagedObjectContext {
    /// Pushes this child context's changes into `parent`; on success the changes count as saved here.
    func saveIntoParent(
        _ parent: ManagedObjectContext, inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]
    ) throws(ObjectGraphError) {
        var changes = ChildContextSave()
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(inserted.count + updated.count)
        for (object, isInsert) in inserted.map({ ($0, true) }) + updated.map({ ($0, false) }) {
            let values = persistentValues(object)
            let toOne = toOneForSave(object)
            let state = ChildContextSave.ObjectState(
                objectID: object.objectID, entityName: object.entity.name, values: values,
                changedAttributes: isInsert ? IndexBits(values.indices) : object.changedAttributes, toOne: toOne,
                changedRelationships: object.changedRelationships)
            if isInsert { changes.inserted.append(state) } else { changes.updated.append(state) }
            changes.joinChanges += joinChanges(for: object)
            changes.orderChanges += orderChanges(for: object)
            rows.append(RowSnapshot(objectID: object.objectID, values: values, version: object.rowVersion, toOne: toOne))
        }
        changes.deleted = deleted.map(\.objectID)
        let save = ContextDidSave(
            rows: rows, insertedRowCount: inserted.count, deleted: Set(changes.deleted), contextName: name,
            sourceContext: ObjectIdentifier(self), reachedStore: false)
        let outcome: Result<Void, ObjectGraphError> = parent.performAndWait {
            do throws(ObjectGraphError) {
                try parent.applyChildSave(changes)
                parent.processPendingChanges()
                parent.notifyParentStoreSave(save)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()

        // The parent took everything: the changes count as saved here (objects keep their IDs).
        for object in inserted { object.insertedFlag = false }
        // (The rows were made from these objects, in this order.)
        for (object, row) in zip(inserted + updated, rows) {
            object.committed = row.values
            object.changedAttributes = []
        }
        for object in deleted { registry[object.objectID] = nil }
        insertedObjectsByIdentity.removeAll()
        updatedObjectsByIdentity.removeAll()
        deletedObjectsByIdentity.removeAll()
        for object in inserted + updated { recordStoredRelationships(object) }
        for object in inserted + updated { object.didSave() }
        for object in deleted {
            object.didSave()
            object.managedObjectContext = nil
        }
        notifyDidSave(save)
    }

    /// Applies a child's save to this context's objects (on this context's queue).
    func applyChildSave(_ changes: ChildContextSave) throws(ObjectGraphError) {
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw .noCoordinator(context: description)
        }
        adoptPendingPermanentIDs()
        // `valuesTaken`: the object is new here and already holds the child's values.
        var applied: [(object: ManagedObject, state: ChildContextSave.ObjectState, takesAll: Bool, valuesTaken: Bool)]
            = []
        applied.reserveCapacity(changes.inserted.count + changes.updated.count)
        registry.reserveCapacity(registry.count + changes.inserted.count)
        var lastEntity: EntityDescription?
        for state in changes.inserted {
            if let existing = registered(state.objectID) {
                applied.append((existing, state, reviveIfDeleted(existing), false))
                continue
            }
            // A push holds runs of one entity: its name is looked up once per run.
            let entity: EntityDescription
            if let lastEntity, lastEntity.name == state.entityName {
                entity = lastEntity
            } else {
                guard let named = model.entity(named: state.entityName), !named.isAbstract else {
                    throw .unknownEntity(state.entityName)
                }
                entity = named
                lastEntity = named
            }
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            object.objectID = state.objectID
            object.hasAwokenFromInsert = true  // it woke in the child; Core Data calling it twice is a known bug
            let valuesTaken = object.takeValuesOfNewObject(state.values)
            insert(object)
            applied.append((object, state, true, valuesTaken))
        }
        for state in changes.updated {
            guard let object = objectForChild(state.objectID) else { continue }
            let revived = reviveIfDeleted(object)
            if object.faultFlag { fulfillFault(object) }
            applied.append((object, state, revived, false))
        }
        for (object, state, takesAll, valuesTaken) in applied where !valuesTaken {
            for index in object.entity.attributes.indices where index < state.values.count {
                guard takesAll || state.changedAttributes.contains(index),
                    !object.entity.attributes[index].isTransient
                else { continue }
                object.setValue(state.values[index], at: index)
            }
        }
        for (object, state, takesAll, _) in applied {
            for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isToMany {
                guard takesAll || state.changedRelationships.contains(index), index < state.toOne.count else { continue }
                let destination = state.toOne[index].flatMap { objectForChild($0) }
                object.setRelatedObject(destination, forKey: relationship.name)
            }
        }
        for change in changes.joinChanges {
            guard let owner = objectForChild(change.objectID),
                change.relationshipIndex < owner.entity.relationships.count
            else { continue }
            let key = owner.entity.relationships[change.relationshipIndex].name
            for id in change.removed { if let member = objectForChild(id) { owner.removeRelatedObject(member, forKey: key) } }
            for id in change.added { if let member = objectForChild(id) { owner.addRelatedObject(member, forKey: key) } }
        }
        for change in changes.orderChanges {
            guard let owner = objectForChild(change.objectID),
                change.relationshipIndex < owner.entity.relationships.count
            else { continue }
            let key = owner.entity.relationships[change.relationshipIndex].name
            owner.setRelatedObjects(change.added.compactMap { objectForChild($0) }, forKey: key)
        }
        for id in changes.deleted {
            guard let object = objectForChild(id), !object.deletedFlag else { continue }
            delete(object)
        }
    }

    /// Undoes this context's unsaved deletion of `object` (a child saved changes to it after the deletion
    /// reached here: last writer wins). Returns whether it was revived.
    private func reviveIfDeleted(_ object: ManagedObject) -> Bool {
        if object.deletedFlag { undoWillChange(object) }
        let key = ObjectIdentifier(object)
        guard object.deletedFlag, deletedObjectsByIdentity.removeValue(forKey: key) != nil else { return false }
        object.deletedFlag = false
        registry[object.objectID] = object
        pending.note(object, .inserted)
        return true
    }

    /// The object a child means by `id`: registered here (also under the permanent ID a temporary one
    /// became), or a fault for a saved row. Nil for a temporary ID this context never knew.
    func objectForChild(_ id: ManagedObjectID) -> ManagedObject? {
        if let object = registered(id) { return object }
        guard !id.isTemporaryID else { return nil }
        return try? object(with: id)
    }

    /// `object`'s current state — unsaved changes included — as the row a child context sees; nil when the
    /// object is deleted here or its row no longer exists.
    func snapshotForChild(_ object: ManagedObject) -> RowSnapshot? {
        if object.faultFlag { fulfillFault(object) }
        guard !object.deletedFlag else { return nil }
        return RowSnapshot(
            objectID: object.objectID, values: persistentValues(object), version: object.rowVersion,
            toOne: toOneForSave(object))
    }

    /// Registers `child` so that it learns the permanent IDs this context's objects get.
    func registerChild(_ child: ManagedObjectContext) {
        children.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakContext(context: child))
        }
    }

    /// Hands permanent IDs (temporary → permanent) to every child, which switches its objects to them
    /// before it next reads from this context, and soon on its own queue in any case.
    func passPermanentIDsToChildren(_ permanentIDs: [ManagedObjectID: ManagedObjectID]) {
        guard !permanentIDs.isEmpty else { return }
        let list = children.withLock { $0.compactMap(\.context) }
        for child in list {
            child.pendingPermanentIDs.withLock { $0.merge(permanentIDs) { _, new in new } }
            child.queue.async { [weak child] in child?.adoptPendingPermanentIDs() }
        }
    }

    /// Switches registered objects known by temporary IDs to the permanent IDs the parent chain gave them
    /// (Core Data leaves a child's objects on their temporary IDs; here they follow).
    func adoptPendingPermanentIDs() {
        let mapping = pendingPermanentIDs.withLock { pending -> [ManagedObjectID: ManagedObjectID] in
            defer { pending.removeAll() }
            return pending
        }
        guard !mapping.isEmpty else { return }
        adoptPermanentIDs(mapping)
    }

    /// Re-keys registered objects from temporary to permanent IDs and remembers the mapping for lookups.
    func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        // Only a parent needs the old IDs (its children may still name objects by them); a context merging
        // another's import would otherwise remember every imported object's temporary ID for good.
        let remembers = isParentOfChildren.load(ordering: .relaxed)
        for (temporary, permanent) in mapping {
            guard let object = registry.removeValue(forKey: temporary) else {
                if remembers { permanentIDsByTemporaryID[temporary] = permanent }
                continue
            }
            permanentIDsByTemporaryID[temporary] = permanent
            object.objectID = permanent
            registry[permanent] = object
        }
        // All of it, not only what was registered here: a child may hold objects this context has let go
        // since it saved them.
        passPermanentIDsToChildren(mapping)
    }
}

/// A weak reference to a child context.
struct WeakContext {
    weak var context: ManagedObjectContext?
}

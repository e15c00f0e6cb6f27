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
        for object in inserted { object.markSaved() }
        // (The rows were made from these objects, in this order.)
        for (object, row) in zip(inserted + updated, rows) {
            object.markValuesSaved(row.values)
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
        // Each object with where its state is in `changes` (not a copy of the state: four references each).
        var applied: [AppliedChildState] = []
        applied.reserveCapacity(changes.inserted.count + changes.updated.count)
        registry.reserveCapacity(registry.count + changes.inserted.count)
        var lastEntity: EntityDescription?
        for (offset, state) in changes.inserted.enumerated() {
            if let existing = objectForChildInsert(state.objectID) {
                applied.append(AppliedChildState(object: existing, inserted: true, offset: offset,
                    takesAll: reviveIfDeleted(existing), valuesTaken: false))
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
            applied.append(AppliedChildState(object: object, inserted: true, offset: offset, takesAll: true,
                valuesTaken: valuesTaken))
        }
        for (offset, state) in changes.updated.enumerated() {
            guard let object = objectForChild(state.objectID) else { continue }
            let revived = reviveIfDeleted(object)
            if object.faultFlag { fulfillFault(object) }
            applied.append(AppliedChildState(object: object, inserted: false, offset: offset, takesAll: revived,
                valuesTaken: false))
        }
        for item in applied where !item.valuesTaken {
            let object = item.object
            let values = item.inserted ? changes.inserted[item.offset].values : changes.updated[item.offset].values
            let changed = item.inserted
                ? changes.inserted[item.offset].changedAttributes : changes.updated[item.offset].changedAttributes
            for index in object.entity.attributes.indices where index < values.count {
                guard item.takesAll || changed.contains(index), !object.entity.attributes[index].isTransient
                else { continue }
                object.setValue(values[index], at: index)
            }
        }
        for item in applied {
            let object = item.object
            let toOne = item.inserted ? changes.inserted[item.offset].toOne : changes.updated[item.offset].toOne
            let changed = item.inserted
                ? changes.inserted[item.offset].changedRelationships : changes.updated[item.offset].changedRelationships
            for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isToMany {
                guard item.takesAll || changed.contains(index), index < toOne.count else { continue }
                let destination = toOne[index].flatMap { objectForChild($0) }
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
        object.markUndeleted()
        registry[object.objectID] = object
        pending.note(object, .inserted)
        return true
    }

    /// The object a child means by `id`: registered here (also under the permanent ID a temporary one
    /// became), or a fault for a saved row — also one named by a temporary ID that has become permanent
    /// since the child last heard from this context. Nil for a temporary ID this context never knew.
    func objectForChild(_ id: ManagedObjectID) -> ManagedObject? {
        if let object = registry[id] { return object }
        let id = temporaryIDs[id] ?? id
        guard !id.isTemporaryID else { return nil }
        // (Registered under the permanent ID, or a fault for its row.)
        return try? object(with: id)
    }

    /// The object already here for an object a child inserted: registered under `id`, or — when the child
    /// pushes it again under a temporary ID that has since become permanent — the saved one. Unlike
    /// ``objectForChild(_:)``, a permanent ID this context does not hold is a new object (the child reserved
    /// its key with `obtainPermanentIDs`), not a saved row. (Two hash lookups for a new object.)
    private func objectForChildInsert(_ id: ManagedObjectID) -> ManagedObject? {
        registry[id] ?? temporaryIDs[id].flatMap(objectForChild)
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

    /// Registers `child` so that it learns the permanent IDs this context's objects get. It starts out
    /// level with this context: it cannot name objects by temporary IDs that became permanent before.
    func registerChild(_ child: ManagedObjectContext) {
        children.withLock { children in
            children.list.removeAll { $0.context == nil }
            children.list.append(WeakContext(context: child))
            child.adoptedParentGeneration.store(children.generation, ordering: .releasing)
        }
    }

    /// Hands permanent IDs (temporary → permanent) to every child, which switches its objects to them
    /// before it next reads from this context, and soon on its own queue in any case; returns the
    /// generation the mapping was handed down as.
    @discardableResult
    func passPermanentIDsToChildren(_ permanentIDs: [ManagedObjectID: ManagedObjectID]) -> Int {
        let (generation, list) = children.withLock { children in
            children.generation += 1
            return (children.generation, children.list.compactMap(\.context))
        }
        guard !permanentIDs.isEmpty else { return generation }
        for child in list {
            child.pendingPermanentIDs.withLock { pending in
                pending.mapping.merge(permanentIDs) { _, new in new }
                pending.generation = generation
            }
            child.queue.async { [weak child] in child?.adoptPendingPermanentIDs() }
        }
        return generation
    }

    /// Switches registered objects known by temporary IDs to the permanent IDs the parent chain gave them
    /// (Core Data leaves a child's objects on their temporary IDs; here they follow).
    func adoptPendingPermanentIDs() {
        let pending = pendingPermanentIDs.withLock { pending -> PendingPermanentIDs in
            defer { pending.mapping.removeAll() }
            return pending
        }
        guard !pending.mapping.isEmpty else { return }
        adoptPermanentIDs(pending.mapping)
        // Only now: until this context's objects carry the permanent IDs, its pushes name them by the old ones.
        adoptedParentGeneration.store(pending.generation, ordering: .releasing)
    }

    /// Re-keys registered objects from temporary to permanent IDs, remembers the mapping for lookups by
    /// the old IDs and hands it to this context's children.
    func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        var adopted: [(key: ManagedObjectID, value: ManagedObjectID)] = []
        for (temporary, permanent) in mapping {
            guard let object = registry.removeValue(forKey: temporary) else { continue }
            object.objectID = permanent
            registry[permanent] = object
            adopted.append((temporary, permanent))
        }
        // All of it, not only what was registered here: a child may hold objects this context has let go
        // since it saved them.
        let generation = passPermanentIDsToChildren(mapping)
        // Only a parent needs the old IDs of objects it does not hold (its children may still name them);
        // a context merging another's import would otherwise remember every imported object's temporary ID.
        if isParentOfChildren.load(ordering: .relaxed) {
            rememberTemporaryIDs(mapping, generation: generation)
        } else {
            rememberTemporaryIDs(adopted, generation: generation)
        }
    }

    /// Hands the permanent IDs this context just gave its own objects (a save, `obtainPermanentIDs`) to
    /// its children and, as a parent, remembers them until every child has taken them up.
    func publishPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        let generation = passPermanentIDsToChildren(mapping)
        if isParentOfChildren.load(ordering: .relaxed) { rememberTemporaryIDs(mapping, generation: generation) }
    }

    /// Remembers the permanent IDs `mapping` gives temporary ones (temporary → permanent), made in
    /// `generation`.
    private func rememberTemporaryIDs(
        _ mapping: some Sequence<(key: ManagedObjectID, value: ManagedObjectID)>, generation: Int
    ) {
        for (temporary, permanent) in mapping {
            temporaryIDs.remember(temporary, as: permanent, generation: generation)
        }
        tidyTemporaryIDs()
    }

    /// Forgets the temporary IDs no child can still use, of objects no longer registered here, once
    /// enough have come in since the last time.
    private func tidyTemporaryIDs() {
        guard temporaryIDs.isDueForTidying else { return }
        let adopted = children.withLock { children in
            children.list.compactMap { $0.context?.adoptedParentGeneration.load(ordering: .acquiring) }.min()
                ?? children.generation
        }
        temporaryIDs.tidy(adoptedGeneration: adopted) { registry[$0] != nil }
    }
}

/// An object a child's save reaches, and where its saved state sits in the save.
private struct AppliedChildState {
    let object: ManagedObject
    /// Whether the state is among the save's inserted objects (otherwise its updated ones).
    let inserted: Bool
    /// Its offset in that list.
    let offset: Int
    /// Whether the object takes every value, not only those the child changed (it is new or revived here).
    let takesAll: Bool
    /// Whether the object is new here and already holds the child's values.
    let valuesTaken: Bool
}

/// Permanent IDs a parent handed down, waiting for the child's queue.
struct PendingPermanentIDs {
    /// Temporary → permanent.
    var mapping: [ManagedObjectID: ManagedObjectID] = [:]
    /// The parent's generation of the newest mapping merged in.
    var generation = 0
}

/// A context's children, and the generation of the permanent IDs it last handed them.
struct ChildContexts {
    var list: [WeakContext] = []
    var generation = 0
}

/// A weak reference to a child context.
struct WeakContext {
    weak var context: ManagedObjectContext?
}

extension ManagedObjectContext {
    /// Whether no context above this one (its parent, the parent's parent, …) has unsaved changes to objects
    /// of the entities named `entityNames`: this child context's fetches of them then give the stores' rows.
    /// Each ancestor is asked on its own queue; true for a context on a coordinator.
    func ancestorsHaveNoUnsavedChanges(toEntitiesNamed entityNames: Set<String>) -> Bool {
        var next = parent
        while let ancestor = next {
            let (isClean, above) = ancestor.performAndWait { () -> (Bool, ManagedObjectContext?) in
                let changes = [ancestor.insertedObjectsByIdentity, ancestor.updatedObjectsByIdentity,
                    ancestor.deletedObjectsByIdentity]
                let touched = changes.contains { $0.values.contains { entityNames.contains($0.entity.name) } }
                return (!touched, ancestor.parent)
            }
            guard isClean else { return false }
            next = above
        }
        return true
    }
}

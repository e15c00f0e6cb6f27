/// Recording changes for a ``ContextUndoManager`` and applying undo groups.
///
/// Recording is per property: before an object's first change in the open group, its lifecycle state
/// (inserted, saved, deleted, or not in the context) is captured; before the first change of each
/// attribute or relationship, that property's old value (relationship contents as object references, so
/// they survive temporary IDs becoming permanent). The hooks are one-line calls in the mutation paths —
/// `ManagedObject.setValue(_:at:)`, the relationship primitives `setToOne`/`insertToMany`/`removeToMany`
/// (which inverse maintenance and delete propagation go through for the *other* objects too), and
/// `insert(_:)`/`delete(_:)` — and cost one nil check when no undo manager is set.
///
/// Applying a group first captures the current state of the same properties (the reverse group, for redo),
/// then restores lifecycles, values and relationship contents, recomputes what counts as changed against
/// the saved state (so an object undone back to its saved values is no longer updated), and brings loaded
/// inverse relationships of objects the group did not record in step.
extension ManagedObjectContext {
    /// Undoes the most recent change group of ``undoManager`` (Core Data's `undo()`); nothing without one.
    public func undo() {
        checkQueue("undo()")
        undoManager?.undo()
    }

    /// Redoes the most recently undone group of ``undoManager`` (Core Data's `redo()`); nothing without one.
    public func redo() {
        checkQueue("redo()")
        undoManager?.redo()
    }

    // MARK: - Hooks

    /// Hook: `object` is about to be inserted or deleted.
    func undoWillChange(_ object: ManagedObject) {
        guard let undoManager, undoManager.context === self else { return }
        undoManager.willChange(object, .lifecycle, in: self)
    }

    /// Hook: attribute `index` of `object` is about to change.
    func undoWillChange(_ object: ManagedObject, attribute index: Int) {
        guard let undoManager, undoManager.context === self else { return }
        undoManager.willChange(object, .attribute(index), in: self)
    }

    /// Hook: relationship `index` of `object` (one side only) is about to change.
    func undoWillChange(_ object: ManagedObject, relationship index: Int) {
        guard let undoManager, undoManager.context === self else { return }
        undoManager.willChange(object, .relationship(index), in: self)
    }

    /// Hook: pending changes were processed — the end of an event.
    func undoEventDidEnd() {
        guard let undoManager, undoManager.context === self else { return }
        undoManager.eventDidEnd()
    }

    /// Hook: rollback or reset made every recorded state meaningless.
    func undoDiscardAllActions() {
        guard let undoManager, undoManager.context === self else { return }
        undoManager.discardAllActions()
    }

    /// Called when ``undoManager`` is assigned.
    func undoManagerDidChange(from old: ContextUndoManager?) {
        if let old, old !== undoManager, old.context === self {
            old.discardAllActions()
            old.context = nil
        }
        undoManager?.attach(to: self)
    }

    // MARK: - Capturing state

    /// Where `object` stands in this context.
    func undoLifecycle(of object: ManagedObject) -> UndoGroup.Lifecycle {
        if object.insertedFlag, object.managedObjectContext === self { return .inserted }
        guard object.managedObjectContext === self, registry[object.objectID] === object else {
            return .absent
        }
        return object.deletedFlag ? .deleted : .saved
    }

    /// The contents of relationship `index` of `object`, loading it if needed.
    func undoContents(of object: ManagedObject, relationship index: Int) -> UndoGroup.Contents {
        let isToMany = object.entity.relationships[index].isToMany
        switch object.relationshipSlots[index] {
        case .toOne(let destination) where !object.faultFlag: return .toOne(destination)
        case .toMany(let members) where !object.faultFlag: return .toMany(members.items)
        default: break
        }
        if object.managedObjectContext === self {
            return isToMany ? .toMany(object.loadedToMany(index).items) : .toOne(object.loadedToOne(index))
        }
        if isToMany { return .toMany([]) }
        return .toOne(object.storedToOne[index].flatMap { try? self.object(with: $0) })
    }

    /// Whether `object` is in the context and not deleted.
    private func isUndoAlive(_ object: ManagedObject) -> Bool {
        guard object.managedObjectContext === self, !object.deletedFlag else { return false }
        return object.insertedFlag || registry[object.objectID] === object
    }

    // MARK: - Applying a group

    /// Puts every object `group` recorded back into its recorded state and returns the reverse group (the
    /// state they were in just before), for redo — or for undo again after a redo.
    func applyUndoGroup(_ group: UndoGroup) -> UndoGroup {
        var reverse = UndoGroup(actionName: group.actionName)
        var wasAlive: [Bool] = []
        for record in group.records {
            let object = record.object
            if object.faultFlag, object.managedObjectContext === self { fulfillFault(object) }
            reverse.append(captureCurrent(record))
            wasAlive.append(isUndoAlive(object))
        }
        for record in group.records where record.lifecycleChanged {
            restoreLifecycle(record)
        }
        for record in group.records {
            let object = record.object
            for (index, value) in record.attributes { object.storage[index] = value }
            if !record.attributes.isEmpty { object.reattachExternalReferences() }
            for (index, contents) in record.relationships { restoreRelationship(object, index, contents) }
        }
        for record in group.records {
            updateChangeState(record)
        }
        for (position, record) in group.records.enumerated() {
            let before = reverse.records[position]
            reconcileUnrecordedInverses(record, before: before, wasAlive: wasAlive[position], recorded: group)
        }
        scheduleProcessing()
        return reverse
    }

    /// The current state of the properties `record` holds.
    private func captureCurrent(_ record: UndoGroup.ObjectRecord) -> UndoGroup.ObjectRecord {
        let object = record.object
        var current = UndoGroup.ObjectRecord(object: object, lifecycle: undoLifecycle(of: object))
        current.lifecycleChanged = record.lifecycleChanged
        for index in record.attributes.keys { current.attributes[index] = object.undoValue(at: index) }
        for index in record.relationships.keys {
            current.relationships[index] = undoContents(of: object, relationship: index)
        }
        return current
    }

    /// Makes `record.object` inserted, saved, deleted or gone, as recorded.
    private func restoreLifecycle(_ record: UndoGroup.ObjectRecord) {
        let object = record.object
        let key = ObjectIdentifier(object)
        let wasAlive = isUndoAlive(object)
        // Whether the object has a row (its own saved one, or one its parent holds) that it can go back to.
        let hasRow = !object.insertedFlag && object.managedObjectContext === self
            && registry[object.objectID] === object
        if record.lifecycle.exists {
            if hasRow {
                object.markUndeleted()
                deletedObjectsByIdentity[key] = nil
            } else {
                // Saved once, and the row is gone (the deletion was saved): it comes back as a new object.
                if !object.insertedFlag, object.committed != nil { makeNewObject(object) }
                object.managedObjectContext = self
                object.markInserted()
                registry[object.objectID] = object
                insertedObjectsByIdentity[key] = object
                updatedObjectsByIdentity[key] = nil
                deletedObjectsByIdentity[key] = nil
            }
            if !wasAlive { pending.note(object, .inserted) }
        } else {
            updatedObjectsByIdentity[key] = nil
            if hasRow {
                object.markDeleted()
                deletedObjectsByIdentity[key] = object
            } else if object.managedObjectContext === self {
                if object.insertedFlag, registry[object.objectID] === object {
                    registry[object.objectID] = nil
                }
                insertedObjectsByIdentity[key] = nil
                object.markDiscarded()
            }
            if wasAlive { pending.note(object, .deleted) }
        }
    }

    /// Turns an object whose row was deleted by a save into a new, unsaved one with a fresh temporary ID,
    /// keeping its values and relationships.
    private func makeNewObject(_ object: ManagedObject) {
        for (index, relationship) in object.entity.relationships.enumerated() {
            guard case .fault = object.relationshipSlots[index] else { continue }
            object.relationshipSlots[index] = relationship.isToMany
                ? .toMany(RelatedObjects())
                : .toOne(object.storedToOne[index].flatMap { try? self.object(with: $0) })
        }
        object.objectID = .makeTemporary(in: object.entity.temporaryIDNamespace)
        object.committed = nil
        object.rowVersion = 0
        object.storedToOne = Array(repeating: nil, count: object.entity.relationships.count)
        object.storedToMany = [:]
        object.becomeLoaded()
        object.changedAttributes = IndexBits(object.entity.attributes.indices.filter { index in
            !object.entity.attributes[index].isTransient
                && !object.storage[index].isIdentical(to: object.entity.attributes[index].defaultValue)
        })
        object.changedRelationships = IndexBits(object.entity.relationships.indices.filter { index in
            !object.entity.relationships[index].isTransient && !(relationshipContents(object, index)?.isEmpty ?? true)
        })
    }

    private func restoreRelationship(_ object: ManagedObject, _ index: Int, _ contents: UndoGroup.Contents) {
        let relationship = object.entity.relationships[index]
        // Join-table changes are computed against what the store holds: know it before changing the slot.
        if relationship.isToMany, relationship.inverseName == nil || object.isManyToMany(index),
            object.storedToMany[index] == nil, !object.insertedFlag, object.managedObjectContext === self
        {
            object.storedToMany[index] = storedRelatedIDs(of: object, relationshipIndex: index)
        }
        switch contents {
        case .toOne(let destination): object.relationshipSlots[index] = .toOne(destination)
        case .toMany(let members): object.relationshipSlots[index] = .toMany(RelatedObjects(members))
        }
    }

    /// Recomputes which properties of `record.object` differ from what is saved, its membership of the
    /// updated objects, and the change to report.
    private func updateChangeState(_ record: UndoGroup.ObjectRecord) {
        let object = record.object
        guard object.managedObjectContext === self else { return }
        let attributes = object.entity.attributes
        if object.insertedFlag {
            for index in record.attributes.keys where !attributes[index].isTransient {
                if object.storage[index].isIdentical(to: attributes[index].defaultValue) {
                    object.changedAttributes.remove(index)
                } else {
                    object.changedAttributes.insert(index)
                }
            }
            for index in record.relationships.keys where !object.entity.relationships[index].isTransient {
                if relationshipContents(object, index)?.isEmpty ?? true {
                    object.changedRelationships.remove(index)
                } else {
                    object.changedRelationships.insert(index)
                }
            }
        } else {
            if let committed = object.committed, committed.count == object.storage.count {
                object.changedAttributes = IndexBits(attributes.indices.filter { index in
                    !attributes[index].isTransient && !object.storage[index].isIdentical(to: committed[index])
                })
            }
            for index in record.relationships.keys where !object.entity.relationships[index].isTransient {
                if relationshipDiffersFromStore(object, index) {
                    object.changedRelationships.insert(index)
                } else {
                    object.changedRelationships.remove(index)
                }
            }
            let key = ObjectIdentifier(object)
            if isUndoAlive(object), object.isUpdated {
                updatedObjectsByIdentity[key] = object
            } else {
                updatedObjectsByIdentity[key] = nil
            }
        }
        if isUndoAlive(object) { pending.note(object, .updated) }
    }

    /// The loaded objects of relationship `index` of `object`; nil when the relationship is a fault.
    private func relationshipContents(_ object: ManagedObject, _ index: Int) -> [ManagedObject]? {
        switch object.relationshipSlots[index] {
        case .fault: return nil
        case .toOne(let destination): return destination.map { [$0] } ?? []
        case .toMany(let members): return members.items
        }
    }

    /// Whether relationship `index` of a saved object holds something other than its saved contents.
    private func relationshipDiffersFromStore(_ object: ManagedObject, _ index: Int) -> Bool {
        let relationship = object.entity.relationships[index]
        switch object.relationshipSlots[index] {
        case .fault:
            return false
        case .toOne(let destination):
            return destination?.objectID != object.storedToOne[index]
        case .toMany(let members):
            let current = members.items.map(\.objectID)
            let stored = object.storedToMany[index] ?? storedRelatedIDs(of: object, relationshipIndex: index)
            return relationship.isOrdered ? current != stored : Set(current) != Set(stored)
        }
    }

    /// Brings loaded unordered to-many inverses of objects the group did not record in step with
    /// `record.object`'s restored relationships. Such an inverse was a fault when the recorded change was
    /// made (so it was left alone) and was loaded — reconciled with the change — afterwards; after the
    /// restore it must say what loading it now would say.
    private func reconcileUnrecordedInverses(
        _ record: UndoGroup.ObjectRecord, before: UndoGroup.ObjectRecord, wasAlive: Bool, recorded group: UndoGroup
    ) {
        let object = record.object
        let isAlive = isUndoAlive(object)
        let indexes =
            wasAlive != isAlive ? Array(object.entity.relationships.indices) : Array(record.relationships.keys)
        for index in indexes {
            guard let inverseName = object.entity.relationships[index].inverseName else { continue }
            let now = currentDestinations(object, index)
            let nowIDs = Set(now.map(ObjectIdentifier.init))
            var candidates = now
            if let previous = before.relationships[index] { candidates += previous.objects }
            var seen: Set<ObjectIdentifier> = []
            for other in candidates where seen.insert(ObjectIdentifier(other)).inserted {
                guard let inverse = other.entity.relationships.firstIndex(where: { $0.name == inverseName }),
                    other.entity.relationships[inverse].isToMany, !other.entity.relationships[inverse].isOrdered,
                    !group.records(other, relationship: inverse)
                else { continue }
                let belongs = isAlive && nowIDs.contains(ObjectIdentifier(other))
                let changed = other.changeLoadedToMany(inverse) { members in
                    belongs ? members.append(object) : members.remove(object)
                }
                if changed == true { pending.note(other, .refreshed) }
            }
        }
    }

    /// The destinations of relationship `index` of `object` without I/O: a to-one fault's from its stored
    /// foreign key (when registered), a to-many fault's none.
    private func currentDestinations(_ object: ManagedObject, _ index: Int) -> [ManagedObject] {
        if let loaded = relationshipContents(object, index) { return loaded }
        guard !object.entity.relationships[index].isToMany, let id = object.storedToOne[index],
            let destination = registry[id]
        else { return [] }
        return [destination]
    }
}

extension ManagedObjectContext {
    /// Brings a registered object up to date, as Core Data's `refresh(_:mergeChanges:)`.
    ///
    /// - With `mergeChanges: false` the object turns back into a fault: its unsaved changes are dropped,
    ///   its relationships released (which breaks reference cycles), and its values read again on next use.
    ///   ``ManagedObject/willTurnIntoFault()`` and ``ManagedObject/didTurnIntoFault()`` are called around it.
    /// - With `mergeChanges: true` it reads the saved values again and re-applies its unsaved changes on top.
    ///
    /// Objects inserted and not saved yet have nothing saved to go back to and are left as they are.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue("refresh(_:mergeChanges:)")
        guard object.managedObjectContext === self, !object.insertedFlag, !object.deletedFlag else { return }
        if mergeChanges {
            guard let source = try? objectSource(),
                let row = try? source.rows(for: [object.objectID], entity: object.entity).first
            else { return }
            object.adoptStoredValues(row)
        } else {
            object.willTurnIntoFault()
            updatedObjectsByIdentity[ObjectIdentifier(object)] = nil
            object.changedAttributes = []
            object.discardRelationshipChanges()
            object.storage = object.entity.defaultValues
            object.externalDataCache = [:]
            object.becomeFault()
            object.didTurnIntoFault()
        }
        pending.note(object, .refreshed)
        scheduleProcessing()
    }

    /// Refreshes every registered object, merging its unsaved changes (Core Data's `refreshAllObjects()`).
    public func refreshAllObjects() {
        for object in Array(registry.values) { refresh(object, mergeChanges: true) }
    }
}

extension ManagedObject {
    /// Takes a stored row as the object's saved state and re-applies its unsaved attribute changes (and its
    /// transient values) on top: what merging a newer save and `refresh(_:mergeChanges: true)` both do.
    func adoptStoredValues(_ row: RowSnapshot) {
        let keepsSomeValues = !changedAttributes.isEmpty || entity.persistentAttributeIndexes.count != storage.count
        if keepsSomeValues, row.values.count == storage.count {
            var values = row.values
            for index in changedAttributes { values[index] = storage[index] }
            for (index, kind) in entity.attributeKinds.enumerated() where kind.isTransient { values[index] = storage[index] }
            storage = values
        } else {
            storage = row.values
        }
        committed = row.values
        pruneExternalDataCache()
        rowVersion = row.version
        adoptStoredRelationships(row)
        becomeLoaded()
    }
}

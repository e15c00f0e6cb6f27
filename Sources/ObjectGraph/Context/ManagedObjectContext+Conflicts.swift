import Foundation

/// Resolving optimistic-locking conflicts by the context's ``MergePolicy`` when a save reaches the store.
///
/// In every policy but `.overwrite`, a row the store no longer has wins: the object is deleted here too.
/// A deletion made here goes ahead against the store's newer row, except under `.rollback`, which keeps
/// the object with the store's values.
extension ManagedObjectContext {
    /// How many times a save resolves conflicts and tries again before giving up with the conflicts.
    static let maximumConflictRetries = 8

    /// The store's conflicts with each object's three states filled in: as this context would save it, as
    /// it last read it, and as the store has it now (read past the row cache).
    func describe(_ conflicts: [MergeConflict], coordinator: PersistentStoreCoordinator) -> [MergeConflict] {
        conflicts.map { conflict in
            var detailed = conflict
            guard let object = registry[conflict.objectID] else { return detailed }
            let names = object.entity.attributes.map(\.name)
            let persistent = object.entity.attributes.indices.filter { !object.entity.attributes[$0].isTransient }
            func snapshot(_ values: [AttributeValue]) -> [String: AttributeValue] {
                Dictionary(uniqueKeysWithValues: persistent.compactMap { index in
                    index < values.count ? (names[index], values[index]) : nil
                })
            }
            detailed.objectSnapshot = snapshot(object.storage)
            detailed.cachedSnapshot = snapshot(object.committed ?? object.storage)
            detailed.persistedSnapshot = storeRow(of: object, coordinator: coordinator).map { snapshot($0.values) }
            return detailed
        }
    }

    /// Applies the merge policy to every conflicting object, so that the next attempt can succeed.
    func resolve(_ conflicts: [MergeConflict], coordinator: PersistentStoreCoordinator) {
        for conflict in conflicts {
            guard let object = registry[conflict.objectID] else { continue }
            let row = storeRow(of: object, coordinator: coordinator)
            let key = ObjectIdentifier(object)
            if deletedObjectsByIdentity[key] != nil {
                resolveDeletion(object, storeRow: row)
                continue
            }
            guard let row else {
                if mergePolicy == .overwrite {
                    reinsert(object)
                } else {
                    takeStoreDeletion(of: object)
                }
                continue
            }
            switch mergePolicy {
            case .error:
                break
            case .overwrite:
                object.rowVersion = row.version
            case .rollback:
                object.changedAttributes = []
                object.discardRelationshipChanges()
                object.adoptStoredValues(row)
                updatedObjectsByIdentity[key] = nil
                pending.note(object, .refreshed)
            case .mergeByPropertyObjectTrump:
                object.adoptStoredValues(row)
            case .mergeByPropertyStoreTrump:
                let committed = object.committed ?? object.storage
                for index in object.changedAttributes
                where index < row.values.count && index < committed.count
                    && !row.values[index].isIdentical(to: committed[index])
                {
                    object.changedAttributes.remove(index)
                }
                for index in object.changedRelationships where index < row.toOne.count
                    && !object.entity.relationships[index].isToMany && row.toOne[index] != object.storedToOne[index]
                {
                    object.changedRelationships.remove(index)
                    object.relationshipSlots[index] = .fault
                }
                object.adoptStoredValues(row)
                if object.changedAttributes.isEmpty && object.changedRelationships.isEmpty {
                    updatedObjectsByIdentity[key] = nil
                }
                pending.note(object, .refreshed)
            }
        }
        processPendingChanges()
    }

    /// An object deleted here whose row the store changed (or already deleted).
    private func resolveDeletion(_ object: ManagedObject, storeRow row: RowSnapshot?) {
        let key = ObjectIdentifier(object)
        guard let row else {
            // Already gone from the store: nothing left to delete.
            deletedObjectsByIdentity[key] = nil
            registry[object.objectID] = nil
            return
        }
        if mergePolicy == .rollback {
            deletedObjectsByIdentity[key] = nil
            object.markUndeleted()
            object.changedAttributes = []
            object.discardRelationshipChanges()
            object.adoptStoredValues(row)
            pending.note(object, .inserted)
        } else {
            object.rowVersion = row.version
        }
    }

    /// The store deleted a row this context changed: the deletion wins.
    private func takeStoreDeletion(of object: ManagedObject) {
        let key = ObjectIdentifier(object)
        updatedObjectsByIdentity[key] = nil
        registry[object.objectID] = nil
        object.markDeleted()
        pending.note(object, .deleted)
    }

    /// `.overwrite` of a row the store deleted: the object is saved again, under its ID.
    private func reinsert(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        updatedObjectsByIdentity[key] = nil
        object.markInserted()
        insertedObjectsByIdentity[key] = object
    }

    /// The object's row as the store has it now, or nil when it is gone.
    private func storeRow(of object: ManagedObject, coordinator: PersistentStoreCoordinator) -> RowSnapshot? {
        try? coordinator.rows(for: [object.objectID], entity: object.entity, bypassingCache: true).first
    }
}

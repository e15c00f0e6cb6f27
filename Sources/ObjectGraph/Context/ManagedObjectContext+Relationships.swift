extension ManagedObjectContext {
    /// The IDs a to-many relationship holds in the store (none for an object never saved).
    func storedRelatedIDs(of object: ManagedObject, relationshipIndex index: Int) -> [ManagedObjectID] {
        // A child's saved objects may still have temporary IDs: its parent knows their relationships.
        guard !object.insertedFlag, parent != nil || !object.objectID.isTemporaryID,
            let source = try? objectSource(),
            let related = try? source.relatedIDs(of: object.objectID, entity: object.entity, relationshipIndex: index)
        else { return [] }
        return related
    }

    /// Brings a to-many relationship just read from the store up to date with this context's unsaved changes
    /// made from the other side (objects whose inverse now points here, or no longer does).
    func reconcile(_ objects: inout RelatedObjects, of owner: ManagedObject, relationshipIndex index: Int) {
        guard let inverseName = owner.entity.relationships[index].inverseName else { return }
        for candidate in Array(insertedObjectsByIdentity.values) + Array(updatedObjectsByIdentity.values) {
            guard !candidate.deletedFlag,
                let inverse = candidate.entity.relationships.firstIndex(where: { $0.name == inverseName }),
                candidate.entity.relationships[inverse].inverseName == owner.entity.relationships[index].name,
                candidate.entity.relationships[inverse].destinationEntityName == owner.entity.name
                    || owner.entity.parentEntityName != nil,
                candidate.changedRelationships.contains(inverse)
            else { continue }
            switch candidate.relationshipSlots[inverse] {
            case .toOne(let target):
                if target === owner { objects.append(candidate) } else { objects.remove(candidate) }
            case .toMany(let targets):
                if targets.contains(owner) {
                    objects.append(candidate)
                } else if candidate.storedToMany[inverse]?.contains(owner.objectID) == true {
                    objects.remove(candidate)
                }
            case .fault:
                break
            }
        }
        for deleted in deletedObjectsByIdentity.values { objects.remove(deleted) }
    }

    /// After merging a save: keeps loaded to-many relationships of registered objects in step with the to-one
    /// side of objects the save changed (the to-one side is what the store keeps for one-to-many).
    func reconcileMergedToOne(_ object: ManagedObject, previous: [ManagedObjectID?]) {
        for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isToMany {
            let now = index < object.storedToOne.count ? object.storedToOne[index] : nil
            let before = index < previous.count ? previous[index] : nil
            guard now != before, let inverseName = relationship.inverseName else { continue }
            if let before, let old = registry[before],
                let back = old.entity.relationships.firstIndex(where: { $0.name == inverseName }),
                old.changeLoadedToMany(back, { $0.remove(object) }) != nil
            {
                pending.note(old, .refreshed)
            }
            if let now, let new = registry[now],
                let back = new.entity.relationships.firstIndex(where: { $0.name == inverseName }),
                new.changeLoadedToMany(back, { $0.append(object) }) != nil
            {
                pending.note(new, .refreshed)
            }
        }
    }

    /// Applies the delete rules of `object`'s relationships (Core Data's delete propagation): nullify takes it
    /// out of each destination's inverse, cascade deletes the destinations too (each once), deny is checked
    /// at save, no action leaves the destinations as they are.
    func propagateDeletion(of object: ManagedObject) {
        for (index, relationship) in object.entity.relationships.enumerated() {
            let destinations = relationship.isToMany
                ? object.loadedToMany(index).items : object.loadedToOne(index).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .nullify:
                for destination in destinations { object.detachInverse(of: index, from: destination) }
            case .cascade:
                for destination in destinations where !destination.deletedFlag {
                    object.detachInverse(of: index, from: destination)
                    delete(destination)
                }
            case .deny, .noAction:
                break
            }
        }
    }

    /// Relationship rules for objects about to be saved: required to-one relationships, to-many minimum and
    /// maximum counts (an optional, empty relationship is fine), and deny rules of deleted objects.
    func relationshipFailures(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject])
        -> [ValidationFailure]
    {
        var failures: [ValidationFailure] = []
        for object in inserted + updated where !object.deletedFlag {
            for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isTransient {
                if relationship.isToMany {
                    // Nothing to check: loading it would read every member (a tag's thousands of people,
                    // at every save of a batch that tags someone).
                    if relationship.isOptional, relationship.minCount <= 0, relationship.maxCount <= 0 { continue }
                    let count = object.loadedToMany(index).count
                    if count == 0, relationship.isOptional { continue }
                    if count == 0, !relationship.isOptional {
                        failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                            reason: "at least one object is required"))
                    } else if relationship.minCount > 0, count < relationship.minCount {
                        failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                            reason: "holds \(count) objects, fewer than the minimum \(relationship.minCount)"))
                    } else if relationship.maxCount > 0, count > relationship.maxCount {
                        failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                            reason: "holds \(count) objects, more than the maximum \(relationship.maxCount)"))
                    }
                } else if !relationship.isOptional, object.loadedToOne(index) == nil {
                    failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                        reason: "a destination object is required"))
                }
            }
        }
        for object in deleted {
            for (index, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                let live = relationship.isToMany
                    ? object.loadedToMany(index).items.filter { !$0.deletedFlag }
                    : object.loadedToOne(index).map { $0.deletedFlag ? [] : [$0] } ?? []
                if !live.isEmpty {
                    failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                        reason: "cannot be deleted: its deny rule forbids it while the relationship holds "
                            + "\(live.count) object(s)"))
                }
            }
        }
        return failures
    }

    /// The to-one destinations to store for `object`, in relationship order.
    func toOneForSave(_ object: ManagedObject) -> [ManagedObjectID?] {
        object.entity.relationships.indices.map { index in
            guard !object.entity.relationships[index].isToMany else { return nil }
            if case .toOne(let destination) = object.relationshipSlots[index] { return destination?.objectID }
            return object.storedToOne[index]
        }
    }

    /// Join-table changes for `object`'s changed many-to-many (and inverse-less to-many) relationships.
    func joinChanges(for object: ManagedObject) -> [StoreSaveRequest.JoinChange] {
        // (Most saved objects changed no relationship; the bits iterate in ascending order.)
        guard !object.changedRelationships.isEmpty else { return [] }
        return object.changedRelationships.compactMap { index in
            let relationship = object.entity.relationships[index]
            guard relationship.isToMany, relationship.inverseName == nil || object.isManyToMany(index),
                case .toMany(let objects) = object.relationshipSlots[index]
            else { return nil }
            let current = objects.items.map(\.objectID)
            let stored = object.storedToMany[index] ?? []
            let currentSet = Set(current)
            let storedSet = Set(stored)
            return StoreSaveRequest.JoinChange(objectID: object.objectID, entity: object.entity, relationshipIndex: index,
                added: current.filter { !storedSet.contains($0) }, removed: stored.filter { !currentSet.contains($0) })
        }
    }

    /// The new order of `object`'s changed ordered to-many relationships.
    func orderChanges(for object: ManagedObject) -> [StoreSaveRequest.JoinChange] {
        guard !object.changedRelationships.isEmpty else { return [] }
        return object.changedRelationships.compactMap { index in
            let relationship = object.entity.relationships[index]
            guard relationship.isToMany, relationship.isOrdered,
                case .toMany(let objects) = object.relationshipSlots[index]
            else { return nil }
            return StoreSaveRequest.JoinChange(objectID: object.objectID, entity: object.entity, relationshipIndex: index,
                added: objects.items.map(\.objectID), removed: [])
        }
    }

    /// After a save: what the store now holds for `object`'s relationships.
    func recordStoredRelationships(_ object: ManagedObject) {
        for (index, relationship) in object.entity.relationships.enumerated() {
            switch object.relationshipSlots[index] {
            case .toOne(let destination) where !relationship.isToMany:
                object.storedToOne[index] = destination?.objectID
            case .toMany(let objects) where relationship.inverseName == nil || object.isManyToMany(index):
                object.storedToMany[index] = objects.items.map(\.objectID)
            default:
                break
            }
        }
        object.changedRelationships = []
    }
}

/// Following and changing relationships. Setting either side of a relationship with an inverse keeps
/// the other side in step at once, in the context — also when an object moves from one owner to another.
/// A relationship without an inverse is kept on its own side only: as Core Data warns, the app is then
/// responsible for the graph's integrity (for example when the destination is deleted).
extension ManagedObject {
    /// The destination of the to-one relationship `key` (a fault until its values are read), or nil.
    ///
    /// - Precondition: the entity has a to-one relationship named `key`.
    public func relatedObject(forKey key: String) -> ManagedObject? {
        if ModelKeyPathProbe.isProbing, ModelKeyPathProbe.record(self, key: key, kind: .toOne) { return nil }
        let index = relationshipIndex(key, toMany: false)
        managedObjectContext?.checkQueue("reading \(entity.name).\(key)")
        return loadedToOne(index)
    }

    /// The objects of the to-many relationship `key`: in order for an ordered relationship, otherwise in
    /// no particular order (as a `Set` in Core Data).
    ///
    /// - Precondition: the entity has a to-many relationship named `key`.
    public func relatedObjects(forKey key: String) -> [ManagedObject] {
        if ModelKeyPathProbe.isProbing, ModelKeyPathProbe.record(self, key: key, kind: .toMany) { return [] }
        let index = relationshipIndex(key, toMany: true)
        managedObjectContext?.checkQueue("reading \(entity.name).\(key)")
        return loadedToMany(index).items
    }

    /// Sets the to-one relationship `key`, updating the inverse of the old and the new destination.
    public func setRelatedObject(_ object: ManagedObject?, forKey key: String) {
        let index = relationshipIndex(key, toMany: false)
        managedObjectContext?.checkQueue("setting \(entity.name).\(key)")
        if let object { checkSameContext(object, key) }
        let old = loadedToOne(index)
        guard old !== object else { return }
        if let old { detachInverse(of: index, from: old) }
        if let object { attachInverse(of: index, to: object) }
        setToOne(index, object)
    }

    /// Adds `object` to the to-many relationship `key` (at the end of an ordered one), updating its inverse.
    public func addRelatedObject(_ object: ManagedObject, forKey key: String) {
        insertRelatedObject(object, at: nil, forKey: key)
    }

    /// Inserts `object` into the ordered to-many relationship `key` at `position` (or appends it).
    public func insertRelatedObject(_ object: ManagedObject, at position: Int?, forKey key: String) {
        let index = relationshipIndex(key, toMany: true)
        managedObjectContext?.checkQueue("changing \(entity.name).\(key)")
        checkSameContext(object, key)
        guard !loadedToMany(index).contains(object) else { return }
        attachInverse(of: index, to: object)
        insertToMany(index, object, at: position)
    }

    /// Removes `object` from the to-many relationship `key`, updating its inverse.
    public func removeRelatedObject(_ object: ManagedObject, forKey key: String) {
        let index = relationshipIndex(key, toMany: true)
        managedObjectContext?.checkQueue("changing \(entity.name).\(key)")
        guard loadedToMany(index).contains(object) else { return }
        detachInverse(of: index, from: object)
        removeToMany(index, object)
    }

    /// Replaces the contents of the to-many relationship `key` (keeping the given order for an ordered one).
    public func setRelatedObjects(_ objects: [ManagedObject], forKey key: String) {
        let index = relationshipIndex(key, toMany: true)
        let wanted = Set(objects.map(ObjectIdentifier.init))
        for object in loadedToMany(index).items where !wanted.contains(ObjectIdentifier(object)) {
            removeRelatedObject(object, forKey: key)
        }
        for (position, object) in objects.enumerated() {
            if loadedToMany(index).contains(object), entity.relationships[index].isOrdered,
                loadedToMany(index).items.firstIndex(where: { $0 === object }) != position
            {
                removeToMany(index, object)
                insertToMany(index, object, at: position)
            } else {
                insertRelatedObject(object, at: position, forKey: key)
            }
        }
    }

    /// The object IDs of relationship `key` without firing faults for the objects themselves, as Core Data's
    /// `objectIDs(forRelationshipNamed:)`.
    public func objectIDs(forRelationshipNamed key: String) -> [ManagedObjectID] {
        guard let index = entity.relationships.firstIndex(where: { $0.name == key }) else { return [] }
        if entity.relationships[index].isToMany { return loadedToMany(index).items.map(\.objectID) }
        if case .toOne(let object) = relationshipSlots[index] { return object.map { [$0.objectID] } ?? [] }
        return storedToOne[index].map { [$0] } ?? []
    }

    /// Whether relationship `key` has not been loaded yet (reading this does not load it).
    public func hasFaultForRelationshipNamed(_ key: String) -> Bool {
        guard let index = entity.relationships.firstIndex(where: { $0.name == key }) else { return false }
        if faultFlag { return true }
        if case .fault = relationshipSlots[index] { return true }
        return false
    }

    // MARK: - Internals

    func relationshipIndex(_ key: String, toMany: Bool) -> Int {
        guard let index = entity.relationships.firstIndex(where: { $0.name == key }) else {
            preconditionFailure("Entity '\(entity.name)' has no relationship '\(key)' (on \(objectID)).")
        }
        guard entity.relationships[index].isToMany == toMany else {
            preconditionFailure("\(entity.name).\(key) is a \(toMany ? "to-one" : "to-many") relationship; "
                + "use \(toMany ? "relatedObject(forKey:)/setRelatedObject" : "relatedObjects(forKey:)/addRelatedObject").")
        }
        return index
    }

    private func checkSameContext(_ object: ManagedObject, _ key: String) {
        guard object.managedObjectContext === managedObjectContext || object.managedObjectContext == nil
            || managedObjectContext == nil
        else {
            preconditionFailure("Illegal attempt to establish a relationship '\(key)' between objects in different "
                + "contexts (\(objectID) and \(object.objectID)).")
        }
    }

    func loadedToOne(_ index: Int) -> ManagedObject? {
        if faultFlag { managedObjectContext?.fulfillFault(self) }
        if case .toOne(let object) = relationshipSlots[index] { return object }
        let object = storedToOne[index].flatMap { try? managedObjectContext?.object(with: $0) }
        relationshipSlots[index] = .toOne(object)
        return object
    }

    func loadedToMany(_ index: Int) -> RelatedObjects {
        if faultFlag { managedObjectContext?.fulfillFault(self) }
        if case .toMany(let objects) = relationshipSlots[index] { return objects }
        let ids = managedObjectContext?.storedRelatedIDs(of: self, relationshipIndex: index) ?? []
        var objects = RelatedObjects(ids.compactMap { try? managedObjectContext?.object(with: $0) })
        if entity.relationships[index].inverseName == nil || isManyToMany(index) { storedToMany[index] = ids }
        managedObjectContext?.reconcile(&objects, of: self, relationshipIndex: index)
        relationshipSlots[index] = .toMany(objects)
        return objects
    }

    /// Whether relationship `index` is an unordered to-many that has not been loaded.
    func isUnloadedUnorderedToMany(_ index: Int) -> Bool {
        guard entity.relationships[index].isToMany, !entity.relationships[index].isOrdered else { return false }
        if faultFlag { return true }
        if case .fault = relationshipSlots[index] { return true }
        return false
    }

    func isManyToMany(_ index: Int) -> Bool {
        let relationship = entity.relationships[index]
        guard relationship.isToMany, let inverse = relationship.inverseName,
            let destination = managedObjectContext?.persistentStoreCoordinator?.managedObjectModel
                .entity(named: relationship.destinationEntityName)
        else { return relationship.isToMany }
        return destination.relationship(named: inverse)?.isToMany ?? true
    }

    // Primitive changes: one side only, recorded as a change of this object.

    func setToOne(_ index: Int, _ object: ManagedObject?) {
        managedObjectContext?.undoWillChange(self, relationship: index)
        relationshipSlots[index] = .toOne(object)
        noteRelationshipChange(index)
    }

    func insertToMany(_ index: Int, _ object: ManagedObject, at position: Int?) {
        managedObjectContext?.undoWillChange(self, relationship: index)
        var objects = loadedToMany(index)
        relationshipSlots[index] = .fault  // let go of the slot's copy, so the change below needs no copy
        let changed = position.map { objects.insert(object, at: $0) } ?? objects.append(object)
        relationshipSlots[index] = .toMany(objects)
        if changed { noteRelationshipChange(index) }
    }

    func removeToMany(_ index: Int, _ object: ManagedObject) {
        managedObjectContext?.undoWillChange(self, relationship: index)
        var objects = loadedToMany(index)
        relationshipSlots[index] = .fault  // let go of the slot's copy, so the change below needs no copy
        let changed = objects.remove(object)
        relationshipSlots[index] = .toMany(objects)
        if changed { noteRelationshipChange(index) }
    }

    /// Changes the loaded to-many relationship `index` in place — without copying its members, which for a
    /// large relationship (a company's thousands of employees) would make each change cost its size — and
    /// returns what `change` returned; nil, and nothing changed, when the relationship is not loaded.
    /// Records nothing (no undo, no change tracking): for keeping inverses in step with saved state.
    func changeLoadedToMany<Result>(_ index: Int, _ change: (inout RelatedObjects) -> Result) -> Result? {
        guard case .toMany(var objects) = relationshipSlots[index] else { return nil }
        relationshipSlots[index] = .fault  // let go of the slot's copy, so the change below needs no copy
        defer { relationshipSlots[index] = .toMany(objects) }
        return change(&objects)
    }

    private func noteRelationshipChange(_ index: Int) {
        if !entity.relationships[index].isTransient { changedRelationships.insert(index) }
        managedObjectContext?.objectDidChange(self)
    }

    /// The inverse relationship's index on `object`, if relationship `index` has an inverse.
    func inverseIndex(of index: Int, on object: ManagedObject) -> Int? {
        guard let name = entity.relationships[index].inverseName else { return nil }
        return object.entity.relationships.firstIndex { $0.name == name }
    }

    /// Makes `object`'s inverse point at (or contain) this object, taking it away from a previous owner.
    private func attachInverse(of index: Int, to object: ManagedObject) {
        guard let inverse = inverseIndex(of: index, on: object) else { return }
        if object.entity.relationships[inverse].isToMany {
            // An unordered to-many that was never loaded stays a fault: when it is loaded, it is reconciled
            // with this context's changes (so adding to a big relationship never reads all of it).
            if object.isUnloadedUnorderedToMany(inverse) { return }
            object.insertToMany(inverse, self, at: nil)
        } else {
            if let previous = object.loadedToOne(inverse), previous !== self,
                let back = object.inverseIndex(of: inverse, on: previous)
            {
                if previous.entity.relationships[back].isToMany {
                    previous.removeToMany(back, object)
                } else {
                    previous.setToOne(back, nil)
                }
            }
            object.setToOne(inverse, self)
        }
    }

    /// Takes this object out of `object`'s inverse.
    func detachInverse(of index: Int, from object: ManagedObject) {
        guard let inverse = inverseIndex(of: index, on: object) else { return }
        if object.entity.relationships[inverse].isToMany {
            if object.isUnloadedUnorderedToMany(inverse) { return }
            object.removeToMany(inverse, self)
        } else if object.loadedToOne(inverse) === self {
            object.setToOne(inverse, nil)
        }
    }
}

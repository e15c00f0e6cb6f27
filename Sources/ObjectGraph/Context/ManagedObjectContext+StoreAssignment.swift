extension ManagedObjectContext {
    /// Chooses the store a newly inserted object is saved to: Core Data's `assign(_:to:)`.
    ///
    /// Without it, a new object goes to the first store (in the order they were added) whose configuration
    /// holds its entity. Assign before the object's first save (or before ``obtainPermanentIDs(for:)``): from
    /// then on its ID names its store, which never changes. Objects related to each other must be in the same
    /// store (a save that links objects of different stores fails). Until the save, fetches limited to some
    /// stores (``FetchRequest/affectedStores``) count the object as in the store it was assigned to.
    ///
    /// ```swift
    /// let note = try context.insertNewObject(forEntityName: "Note")
    /// try context.assign(note, to: archiveStore)
    /// try context.save()   // note.objectID.storeIdentifier == archiveStore.identifier
    /// ```
    ///
    /// - Throws: ``ObjectGraphError/objectNotInContext(_:)`` for an object of another context, and
    ///   ``ObjectGraphError/cannotAssignStore(objectID:store:reason:)`` when the object was saved already (or has
    ///   a permanent ID), the store is not one of the coordinator's, or its configuration does not hold the
    ///   object's entity.
    public func assign(_ object: ManagedObject, to store: PersistentStore) throws(ObjectGraphError) {
        checkQueue("assign(_:to:)")
        guard object.managedObjectContext === self else { throw .objectNotInContext(object.objectID) }
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        func refuse(_ reason: String) -> ObjectGraphError {
            .cannotAssignStore(objectID: object.objectID, store: store.displayName, reason: reason)
        }
        guard object.objectID.isTemporaryID else {
            throw refuse("it is saved already (or has a permanent ID), and an object's store is fixed at its first save")
        }
        guard coordinator.persistentStores.contains(where: { $0 === store }) else {
            throw refuse("the store is not added to this context's coordinator")
        }
        guard store.holdsEntity(named: object.entity.name) else {
            throw refuse("its configuration \(store.configurationName ?? "") does not hold entity \(object.entity.name)")
        }
        coordinator.assign(object.objectID, to: store)
    }
}

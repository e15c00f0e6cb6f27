extension PersistentStoreCoordinator {
    /// Applies a context's save: each change goes to the store that holds its object (inserts by the store
    /// ``ManagedObjectContext/assign(_:to:)`` chose, by the permanent ID obtained ahead of the save, or by entity;
    /// updates, deletes and relationship changes by object ID), and each store applies its part in one
    /// transaction.
    ///
    /// Before anything is written, every change is routed, read-only stores refuse the whole save, and a
    /// relationship between objects of different stores fails the save (stores cannot record one, as in Core
    /// Data). **A save that spans several stores is not atomic across them**, just as Core Data's is not: the
    /// stores commit one after the other, in the coordinator's order, and if a later one fails (a merge
    /// conflict, a full disk) the earlier ones keep what they committed. A save that touches one store is
    /// all-or-nothing.
    ///
    /// - Returns: the permanent IDs of inserted objects and the new row versions, from every store.
    /// - Throws: ``ObjectGraphError/readOnlyStore(store:)``, ``ObjectGraphError/crossStoreRelationship(from:to:)``,
    ///   routing errors, or the first store's error.
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        let result = try saveRouted(request)
        forgetAssignments(of: request.inserts.map(\.temporaryID))
        return result
    }

    /// ``save(_:)`` without forgetting the saved objects' store assignments.
    private func saveRouted(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        let all = persistentStores
        if all.count == 1, let only = all.first, only.entityNames == nil {
            // The common case: nothing to route.
            guard !only.isReadOnly else { throw .readOnlyStore(store: only.displayName) }
            for insert in request.inserts {
                if let id = insert.permanentID, id.storeIdentifier != only.identifier {
                    throw .unknownStore(identifier: id.storeIdentifier)
                }
            }
            return try only.backend.save(request)
        }
        let parts = try split(request)
        if let readOnly = parts.first(where: { $0.store.isReadOnly }) {
            throw .readOnlyStore(store: readOnly.store.displayName)
        }
        var result = StoreSaveResult()
        for part in parts {
            let partial = try part.store.backend.save(part.request)
            result.permanentIDs.merge(partial.permanentIDs) { _, new in new }
            result.versions.merge(partial.versions) { _, new in new }
            result.externalValues.merge(partial.externalValues) { _, new in new }
        }
        return result
    }

    /// Routes every change of `request` to its store and checks that relationships stay inside one store.
    private func split(_ request: StoreSaveRequest) throws(ObjectGraphError) -> [StorePart] {
        var router = SaveRouter(coordinator: self)
        for insert in request.inserts {
            let store: PersistentStore
            if let permanent = insert.permanentID {
                store = try self.store(for: permanent)
                router.insertedStore[permanent] = store
            } else {
                store = try self.store(for: insert.temporaryID)
            }
            router.insertedStore[insert.temporaryID] = store
        }
        for insert in request.inserts {
            let store = try router.owner(insert.temporaryID)
            try router.checkSameStore(insert.temporaryID, store, insert.toOne)
            router.parts[store.identifier, default: StorePart(store: store)].request.inserts.append(insert)
        }
        for update in request.updates {
            let store = try router.owner(update.objectID)
            try router.checkSameStore(update.objectID, store, update.toOne)
            router.parts[store.identifier, default: StorePart(store: store)].request.updates.append(update)
        }
        for delete in request.deletes {
            let store = try router.owner(delete.objectID)
            router.parts[store.identifier, default: StorePart(store: store)].request.deletes.append(delete)
        }
        for change in request.joinChanges {
            let store = try router.owner(change.objectID)
            try router.checkSameStore(change.objectID, store, change.added)
            router.parts[store.identifier, default: StorePart(store: store)].request.joinChanges.append(change)
        }
        for change in request.orderChanges {
            let store = try router.owner(change.objectID)
            router.parts[store.identifier, default: StorePart(store: store)].request.orderChanges.append(change)
        }
        // Commit in the coordinator's store order, so the same save always meets its stores in the same order.
        return persistentStores.compactMap { router.parts[$0.identifier] }
    }

    /// Gives objects permanent IDs before they are saved, as Core Data's `obtainPermanentIDs(for:)`: each
    /// object's store (the one its entity is routed to) reserves primary keys for it — SQLite by moving
    /// `Z_PRIMARYKEY.Z_MAX` on in one `BEGIN IMMEDIATE` transaction — so no later save can take them. The
    /// objects are still unsaved: their inserts carry the permanent ID (``StoreSaveRequest/Insert/permanentID``)
    /// and the store writes the rows under those keys. Keys are handed out in the order given. IDs that are
    /// already permanent are left out of the answer; keys reserved for objects never saved are skipped.
    ///
    /// - Returns: the permanent ID of each temporary ID.
    /// - Throws: ``ObjectGraphError/readOnlyStore(store:)`` (before reserving anything), routing errors, or a
    ///   store error.
    func obtainPermanentIDs(for objects: [(temporaryID: ManagedObjectID, entity: EntityDescription)])
        throws(ObjectGraphError) -> [ManagedObjectID: ManagedObjectID]
    {
        struct Group {
            let store: PersistentStore
            let root: EntityDescription
            var members: [(temporaryID: ManagedObjectID, entity: EntityDescription)] = []
        }
        var groups: [Group] = []
        var groupIndex: [String: Int] = [:]
        var seen: Set<ManagedObjectID> = []
        for object in objects where object.temporaryID.isTemporaryID && seen.insert(object.temporaryID).inserted {
            let store = try store(for: object.temporaryID)
            guard !store.isReadOnly else { throw .readOnlyStore(store: store.displayName) }
            let root = managedObjectModel.rootEntity(of: object.entity)
            let key = store.identifier + "/" + root.name
            if groupIndex[key] == nil {
                groupIndex[key] = groups.count
                groups.append(Group(store: store, root: root))
            }
            if let index = groupIndex[key] { groups[index].members.append(object) }
        }
        var result: [ManagedObjectID: ManagedObjectID] = [:]
        for group in groups {
            let keys = try group.store.backend.allocatePrimaryKeys(for: group.root, count: group.members.count)
            for (member, key) in zip(group.members, keys) {
                result[member.temporaryID] = ManagedObjectID(
                    entityName: member.entity.name, storeIdentifier: group.store.identifier, primaryKey: key)
            }
        }
        forgetAssignments(of: Array(result.keys))
        return result
    }

    /// Records that the unsaved object `temporaryID` is to be saved to `store`.
    func assign(_ temporaryID: ManagedObjectID, to store: PersistentStore) {
        storeAssignments.withLock { $0[temporaryID] = store.identifier }
    }

    /// Forgets the store assignments of objects whose store is now fixed (saved, or given a permanent ID).
    private func forgetAssignments(of temporaryIDs: [ManagedObjectID]) {
        guard !temporaryIDs.isEmpty else { return }
        storeAssignments.withLock { assignments in
            guard !assignments.isEmpty else { return }
            for id in temporaryIDs { assignments[id] = nil }
        }
    }
}

/// One store's share of a save.
private struct StorePart {
    let store: PersistentStore
    var request = StoreSaveRequest()
}

/// The state of splitting one save by store.
private struct SaveRouter {
    let coordinator: PersistentStoreCoordinator
    /// Each store's part, by store identifier.
    var parts: [String: StorePart] = [:]
    /// Where this save's new objects go, so relationships to them resolve without routing again.
    var insertedStore: [ManagedObjectID: PersistentStore] = [:]

    /// The store of `id`: where this save inserts it, or where the coordinator routes it.
    func owner(_ id: ManagedObjectID) throws(ObjectGraphError) -> PersistentStore {
        if let store = insertedStore[id] { return store }
        return try coordinator.store(for: id)
    }

    /// Fails when a relationship of `from` (held by `store`) points into another store.
    func checkSameStore(_ from: ManagedObjectID, _ store: PersistentStore, _ destinations: [ManagedObjectID?])
        throws(ObjectGraphError)
    {
        for case let destination? in destinations {
            if try owner(destination) !== store { throw .crossStoreRelationship(from: from, to: destination) }
        }
    }
}

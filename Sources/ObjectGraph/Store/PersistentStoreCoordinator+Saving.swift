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
    ///
    /// Each store's commit is then sent out as a ``StoreCommitEvent`` (from this coordinator, carrying the rows
    /// as committed and `source`, the saving context), also when a later store of the same save fails.
    ///
    /// When one store took the whole save, the result carries the rows as committed
    /// (``StoreSaveResult/committedRows``), so the saving context reuses them for its did-save instead of
    /// building the same rows again.
    func save(_ request: StoreSaveRequest, source: ObjectIdentifier? = nil) throws(ObjectGraphError) -> StoreSaveResult {
        var committed: [CommittedPart] = []
        var result: StoreSaveResult
        do {
            result = try saveRouted(request, committed: &committed)
        } catch {
            for part in committed { emit(commitEvent(part.request, part.result, store: part.store, source: source)) }
            throw error
        }
        let events = committed.map { commitEvent($0.request, $0.result, store: $0.store, source: source) }
        if events.count == 1, let only = events.first { result.committedRows = only.rows }
        for event in events { emit(event) }
        forgetAssignments(of: request.inserts.map(\.temporaryID))
        return result
    }

    /// One store's committed share of a save.
    struct CommittedPart {
        let store: PersistentStore
        let request: StoreSaveRequest
        let result: StoreSaveResult
    }

    /// ``save(_:source:)`` without forgetting the saved objects' store assignments; each store's committed part
    /// is appended to `committed` as soon as it commits.
    private func saveRouted(_ request: StoreSaveRequest, committed: inout [CommittedPart]) throws(ObjectGraphError)
        -> StoreSaveResult
    {
        let all = persistentStores
        if all.count == 1, let only = all.first, only.entityNames == nil {
            // The common case: nothing to route.
            guard !only.isReadOnly else { throw .readOnlyStore(store: only.displayName) }
            try checkNotMigratedElsewhere(only)
            for insert in request.inserts {
                if let id = insert.permanentID, id.storeIdentifier != only.identifier {
                    throw .unknownStore(identifier: id.storeIdentifier)
                }
            }
            let result = try only.backend.save(request)
            committed.append(CommittedPart(store: only, request: request, result: result))
            return result
        }
        let parts = try split(request)
        if let readOnly = parts.first(where: { $0.store.isReadOnly }) {
            throw .readOnlyStore(store: readOnly.store.displayName)
        }
        for part in parts { try checkNotMigratedElsewhere(part.store) }
        var result = StoreSaveResult()
        for part in parts {
            let partial = try part.store.backend.save(part.request)
            committed.append(CommittedPart(store: part.store, request: part.request, result: partial))
            result.permanentIDs.merge(partial.permanentIDs) { _, new in new }
            result.versions.merge(partial.versions) { _, new in new }
            result.externalValues.merge(partial.externalValues) { _, new in new }
        }
        return result
    }

    /// The commit event of one store's part of a save: the rows as the store now holds them (values with the
    /// references of externally stored ones, new versions, to-one destinations with permanent IDs).
    private func commitEvent(
        _ request: StoreSaveRequest, _ result: StoreSaveResult, store: PersistentStore, source: ObjectIdentifier?
    ) -> StoreCommitEvent {
        func committedValues(_ values: [AttributeValue], of id: ManagedObjectID) -> [AttributeValue] {
            guard !result.externalValues.isEmpty, let references = result.externalValues[id] else { return values }
            var values = values
            for (index, reference) in references where index < values.count { values[index] = reference }
            return values
        }
        func permanent(_ toOne: [ManagedObjectID?]) -> [ManagedObjectID?] {
            guard toOne.contains(where: { $0?.isTemporaryID == true }) else { return toOne }
            return toOne.map { id in id.flatMap { result.permanentIDs[$0] ?? $0 } }
        }
        var rows: [RowSnapshot] = []
        rows.reserveCapacity(request.inserts.count + request.updates.count)
        var inserted: [ManagedObjectID] = []
        inserted.reserveCapacity(request.inserts.count)
        var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
        for insert in request.inserts {
            guard let id = insert.permanentID ?? result.permanentIDs[insert.temporaryID] else { continue }
            if insert.temporaryID.isTemporaryID { permanentIDs[insert.temporaryID] = id }
            inserted.append(id)
            rows.append(RowSnapshot(objectID: id, values: committedValues(insert.values, of: id),
                version: result.versions[id] ?? 1, toOne: permanent(insert.toOne)))
        }
        let insertedRowCount = rows.count
        var updated: [(id: ManagedObjectID, keys: Set<String>)] = []
        updated.reserveCapacity(request.updates.count)
        for update in request.updates {
            var names: Set<String> = []
            if let changed = update.changedProperties {
                for index in changed.attributes where index < update.entity.attributes.count {
                    names.insert(update.entity.attributes[index].name)
                }
                for index in changed.relationships where index < update.entity.relationships.count {
                    names.insert(update.entity.relationships[index].name)
                }
            }
            updated.append((update.objectID, names))
            rows.append(RowSnapshot(objectID: update.objectID, values: committedValues(update.values, of: update.objectID),
                version: result.versions[update.objectID] ?? update.expectedVersion + 1, toOne: permanent(update.toOne)))
        }
        return StoreCommitEvent(storeIdentifier: store.identifier, origin: .thisCoordinator, kind: .save,
            changes: CommitChanges(inserted: inserted, updated: updated, deleted: request.deletes.map(\.objectID)),
            author: request.author, contextName: request.contextName,
            historyToken: result.transactionNumber.map { HistoryToken(storeIdentifier: store.identifier, transactionNumber: $0) },
            rows: rows, insertedRowCount: insertedRowCount, permanentIDs: permanentIDs, sourceContext: source)
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

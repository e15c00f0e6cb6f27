import Foundation

extension ManagedObjectContext {
    /// Brings this context up to date with another context's save. Call it on this context's queue.
    ///
    /// Objects inserted there are registered here; registered objects updated there take the saved values
    /// (keeping any unsaved changes made here on top); registered objects deleted there become deleted
    /// here. Observers then receive one ``ObjectsDidChange`` for the whole merge — which is what a
    /// fetched-results controller on this context reacts to.
    public func mergeChanges(fromContextDidSave save: ContextDidSave) {
        mergeChanges(fromContextDidSaves: [save])
    }

    /// Merges several saves at once, with a single ``ObjectsDidChange`` at the end: the way to keep up
    /// with an import that saves faster than the user interface redraws.
    public func mergeChanges(fromContextDidSaves saves: [ContextDidSave]) {
        checkQueue("mergeChanges(fromContextDidSave:)")
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        adoptPendingPermanentIDs()
        var materializedIDs: [ManagedObjectID] = []
        for save in saves where save.sourceContext != ObjectIdentifier(self) {
            // Objects this context knows by temporary IDs (a child of the saving context) follow them.
            if !save.permanentIDs.isEmpty { adoptPermanentIDs(save.permanentIDs) }
            // (The entity of the row before is asked for first: a save's rows are mostly of one entity.)
            var lastEntity: (namespace: ObjectIDNamespace, entity: EntityDescription?)?
            for (offset, row) in save.rows.enumerated() {
                let inserted = offset < save.insertedRowCount
                let id = row.objectID
                let entity: EntityDescription?
                if let last = lastEntity, last.namespace === id.namespace {
                    entity = last.entity
                } else {
                    entity = model.entity(named: id.entityName)
                    lastEntity = (id.namespace, entity)
                }
                guard let entity else { continue }
                if let object = registry[id] {
                    let previous = object.storedToOne
                    refresh(object, with: row, unconditionally: !save.reachedStore)
                    reconcileMergedToOne(object, previous: previous)
                    // A row the save inserted is reported as inserted even when this context already read it
                    // (a fetch made after the save committed and before this merge): observers such as a
                    // fetched-results controller have not heard of it (a fetch is not a change).
                    if inserted { pending.note(object, .inserted, attributes: .none) }
                } else {
                    let object = materializeUnregistered(row, entity: entity)
                    materializedIDs.append(object.objectID)
                    pending.note(object, inserted ? .inserted : .refreshed)
                    reconcileMergedToOne(object, previous: [])
                }
            }
            for id in save.deletedObjectIDs {
                guard let object = registry.removeValue(forKey: id) else {
                    // Not registered here (never loaded, or merged in earlier and forgotten): observers that
                    // keep IDs rather than objects — a fetched-results controller — must still hear of it.
                    if let entity = model.entity(named: id.entityName) {
                        pending.note(deletedStandIn(for: id, entity: entity), .deleted)
                    }
                    continue
                }
                // It leaves the loaded inverse relationships of the objects it was related to.
                for (index, relationship) in object.entity.relationships.enumerated() {
                    guard let inverseName = relationship.inverseName else { continue }
                    var related: [ManagedObject] = []
                    switch object.relationshipSlots[index] {
                    case .toOne(let target): related = target.map { [$0] } ?? []
                    case .toMany(let members): related = members.items
                    case .fault: related = object.storedToOne[index].flatMap { registry[$0] }.map { [$0] } ?? []
                    }
                    for other in related {
                        guard let back = other.entity.relationships.firstIndex(where: { $0.name == inverseName }) else {
                            continue
                        }
                        if other.changeLoadedToMany(back, { $0.remove(object) }) == nil,
                            case .toOne(let target) = other.relationshipSlots[back], target === object
                        {
                            other.relationshipSlots[back] = .toOne(nil)
                        }
                    }
                }
                let key = ObjectIdentifier(object)
                updatedObjectsByIdentity[key] = nil
                deletedObjectsByIdentity[key] = nil
                object.markDeleted()
                pending.note(object, .deleted)
            }
        }
        // Another writer replaced or migrated the store: any registered object may have changed. Each is refreshed
        // (keeping its unsaved changes) and observers hear that all were invalidated.
        if saves.contains(where: { $0.invalidatesAllObjects && $0.sourceContext != ObjectIdentifier(self) }) {
            // (An object without changes only turns into a fault: it reads its row again when next used.)
            for object in Array(registry.values) where !object.insertedFlag && !object.deletedFlag {
                if object.hasChanges {
                    refresh(object, mergeChanges: true)
                } else if !object.isFault {
                    refresh(object, mergeChanges: false)
                }
            }
            pending.invalidatedAll = true
        }
        processPendingChanges()
        // Other writers' commits go on to the children that follow them (a root that merges them is the only
        // context of the stack that hears of them from the store).
        for save in saves where save.isRemote && save.sourceContext != ObjectIdentifier(self) {
            notifyRemoteMerge(save)
        }
        // Objects the merge brought in only to tell observers about them are forgotten again unless something
        // now holds them — as Core Data's weakly held registrations are — so a context that follows a large
        // import does not keep every imported object.
        releaseUnreferencedObjects(materializedIDs)
    }

    /// An unregistered object standing for a row another context deleted, reported as deleted: a fault
    /// whose values, if read, are the defaults (its row is gone).
    private func deletedStandIn(for id: ManagedObjectID, entity: EntityDescription) -> ManagedObject {
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        object.objectID = id
        object.managedObjectContext = self
        object.becomeFault()
        object.markDeleted()
        return object
    }

    /// Merges the ``ContextDidSave`` carried by a `managedObjectContextDidSave` notification.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let save = notification.userInfo?[ContextDidSave.userInfoKey] as? ContextDidSave else { return }
        mergeChanges(fromContextDidSave: save)
    }

    /// Replaces a registered object's saved values with newer ones, re-applying its unsaved changes.
    ///
    /// A save that reached a store replaces only older rows; a sibling child's push into a shared parent has
    /// no new row version and is taken as it is (last writer wins). An object whose saved state is already
    /// the row's (its own save seen again through a parent) is left alone and not reported, unless it has a
    /// loaded to-many relationship, which the row does not describe.
    private func refresh(_ object: ManagedObject, with row: RowSnapshot, unconditionally: Bool) {
        guard unconditionally || row.version > object.rowVersion || object.faultFlag else { return }
        // The attributes whose saved values the row changes (all, for a fault: its values were not read).
        var changed = AttributeBits.all
        if !object.faultFlag, let committed = object.committed, committed.count == row.values.count {
            changed = AttributeValue.differingIndexes(committed, row.values)
        }
        // (A loaded to-many relationship may have changed even when values and to-ones did not.)
        if changed == .none, row.toOne.isEmpty || row.toOne == object.storedToOne,
            !object.relationshipSlots.contains(where: { if case .toMany = $0 { true } else { false } })
        {
            object.rowVersion = max(object.rowVersion, row.version)
            return
        }
        // When the current values are the saved ones (the same array, nothing changed here), those that change
        // are those whose saved values did; otherwise they are found by comparing the values before and after.
        let before = object.storage
        let currentAreSaved = changed != .all && object.changedAttributes.isEmpty
            && before.withUnsafeBufferPointer { $0.baseAddress } == object.committed?.withUnsafeBufferPointer { $0.baseAddress }
        object.adoptStoredValues(row)
        if !currentAreSaved, changed != .all { changed = AttributeValue.differingIndexes(before, object.storage) }
        pending.note(object, .refreshed, attributes: changed)
    }

    /// Queues a save from another context for merging on this context's queue; saves that arrive while a
    /// merge is already queued are merged together — up to about ``maximumCoalescedMergeObjects`` changed
    /// objects per turn of the queue (always whole saves), so an importer that outruns the queue never makes
    /// one merge so large that the queue (the user interface, on the main queue) stalls for it; the rest
    /// follows in the next turn. Work handed to ``perform(_:)`` or ``performAndWait(_:)`` first merges every
    /// save that arrived before it runs, so such work never sees a backlog half merged.
    func enqueueMerge(_ save: ContextDidSave) {
        let shouldSchedule = incomingSaves.withLock { state -> Bool in
            state.saves.append(save)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        guard shouldSchedule else { return }
        scheduleQueuedMerge()
    }

    /// Whether saves of other contexts are waiting to be merged automatically (see
    /// ``automaticallyMergesChangesFromParent``): merges are spread over turns of this context's queue, so
    /// for a moment after a fast import has finished, this context has not seen all of it yet. A user
    /// interface can say it is still catching up. Safe to ask from any queue.
    public var hasQueuedMerges: Bool {
        incomingSaves.withLock { !$0.saves.isEmpty }
    }

    /// About how many changed objects one automatic merge takes before leaving the rest for the next turn.
    static let maximumCoalescedMergeObjects = 1_000

    private func scheduleQueuedMerge() {
        queue.async { [weak self] in
            guard let self else { return }
            let (saves, more) = self.incomingSaves.withLock { state -> ([ContextDidSave], Bool) in
                var taken = 0
                var objects = 0
                for save in state.saves {
                    let size = save.insertedObjectIDs.count + save.updatedObjectIDs.count + save.deletedObjectIDs.count
                    if taken > 0 && objects + size > Self.maximumCoalescedMergeObjects { break }
                    taken += 1
                    objects += size
                }
                let slice = Array(state.saves.prefix(taken))
                state.saves.removeFirst(taken)
                if state.saves.isEmpty { state.scheduled = false }
                return (slice, !state.saves.isEmpty)
            }
            if !saves.isEmpty {
                guard let resolved = self.resolvedForMerging(saves) else { return }
                self.mergeChanges(fromContextDidSaves: resolved)
            }
            if more { self.scheduleQueuedMerge() }
        }
    }

    /// `saves` with the rows of commit events that did not carry them read from the store. When a read fails
    /// (a lock held too long, an I/O error), nothing is merged: the saves go back to the front of the queue and
    /// the merge is tried again shortly — a failed read never turns into deleted objects.
    private func resolvedForMerging(_ saves: [ContextDidSave]) -> [ContextDidSave]? {
        guard saves.contains(where: { $0.unresolved != nil }) else { return saves }
        guard let coordinator = persistentStoreCoordinator else { return [] }
        do {
            return try saves.map { save throws(ObjectGraphError) in
                try save.unresolved?.didSave(reading: coordinator) ?? save
            }
        } catch {
            incomingSaves.withLock { state in
                state.saves.insert(contentsOf: saves, at: 0)
                state.scheduled = true
            }
            queue.asyncAfter(deadline: .now() + Self.failedMergeRetryDelay) { [weak self] in self?.scheduleQueuedMerge() }
            return nil
        }
    }

    /// How long a merge whose rows could not be read waits before it is tried again.
    static let failedMergeRetryDelay: DispatchTimeInterval = .milliseconds(100)

    /// Merges every queued save at once (on the context's queue, before a `perform` block runs). A merge
    /// already scheduled then finds nothing left and ends.
    func mergeAllQueuedSaves() {
        let saves = incomingSaves.withLock { state -> [ContextDidSave] in
            defer { state.saves.removeAll() }
            return state.saves
        }
        if !saves.isEmpty, let resolved = resolvedForMerging(saves) { mergeChanges(fromContextDidSaves: resolved) }
    }
}

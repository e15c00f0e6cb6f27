import Foundation
import Synchronization

/// Changes recorded since the context last processed pending changes.
///
/// Objects are kept in the order they were first noted, each with its kind; an object carries the
/// ``generation`` of the record that holds it and its slot there (``ManagedObject/pendingMark``,
/// ``ManagedObject/pendingSlot``), so noting a change — once per `setValue`, once per object a merge
/// brings in — folds it into what is recorded without hashing anything.
struct PendingChanges {
    enum Kind: UInt8 { case inserted, updated, deleted, refreshed }

    /// Distinguishes this record from every other one in the process (never 0, the mark of no record).
    let generation = PendingChanges.generations.add(1, ordering: .relaxed).newValue
    private static let generations = Atomic<UInt64>(0)

    /// Every object noted, in the order first noted.
    private(set) var objects: [ManagedObject] = []
    /// Each object's kind; nil once its record was dropped (an insertion deleted again before anyone was
    /// told).
    private(set) var kinds: [Kind?] = []
    /// For each object, the attributes whose values may have changed in this event, as ``AttributeBits``.
    private(set) var attributes: [AttributeBits] = []
    /// How many objects are recorded under each kind, by ``Kind/rawValue``.
    private var counts: (Int, Int, Int, Int) = (0, 0, 0, 0)
    var invalidatedAll = false
    /// Whether registered objects' IDs changed (temporary to permanent: a save, `obtainPermanentIDs`, a
    /// parent's permanent IDs reaching a child) since the last event: the event then tells the observers that
    /// follow IDs (fetched-results controllers), even when nothing else changed. Not part of ``isEmpty``: an
    /// event that carries only this is not posted to other observers.
    var objectIDsChanged = false

    var isEmpty: Bool {
        count(of: .inserted) + count(of: .updated) + count(of: .deleted) + count(of: .refreshed) == 0 && !invalidatedAll
    }

    /// How many objects are recorded as `kind`.
    func count(of kind: Kind) -> Int {
        switch kind {
        case .inserted: counts.0
        case .updated: counts.1
        case .deleted: counts.2
        case .refreshed: counts.3
        }
    }

    /// The objects recorded as `kind`, in the order they were first noted.
    func objects(_ kind: Kind) -> [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count(of: kind))
        for (object, recorded) in zip(objects, kinds) where recorded == kind { result.append(object) }
        return result
    }

    /// The kind `object` is recorded as, or nil when it is not.
    func kind(of object: ManagedObject) -> Kind? {
        object.pendingMark == generation ? kinds[object.pendingSlot] : nil
    }

    /// Records one change, folding it into what is already recorded for the object: an object inserted
    /// and then deleted before anyone was told is not reported at all; an inserted object that changes is
    /// still just inserted; a deleted object is only deleted; an updated one is not also refreshed. An
    /// object is recorded under one kind at most. `attributes` are those whose values the change may have
    /// changed (all, unless the caller knows better); they add up over the event.
    mutating func note(_ object: ManagedObject, _ kind: Kind, attributes changed: AttributeBits = .all) {
        if object.pendingMark == generation { attributes[object.pendingSlot].formUnion(changed) }
        let current = self.kind(of: object)
        let next: Kind?
        switch kind {
        case .inserted: next = .inserted
        case .updated: next = current == .inserted || current == .deleted ? current : .updated
        case .refreshed: next = current ?? .refreshed
        case .deleted: next = current == .inserted ? nil : .deleted
        }
        guard next != current else { return }
        if let current { adjustCount(of: current, by: -1) }
        if let next { adjustCount(of: next, by: 1) }
        if object.pendingMark == generation {
            kinds[object.pendingSlot] = next
        } else {
            object.pendingMark = generation
            object.pendingSlot = objects.count
            objects.append(object)
            kinds.append(next)
            attributes.append(changed)
        }
    }

    private mutating func adjustCount(of kind: Kind, by delta: Int) {
        switch kind {
        case .inserted: counts.0 += delta
        case .updated: counts.1 += delta
        case .deleted: counts.2 += delta
        case .refreshed: counts.3 += delta
        }
    }
}

extension ManagedObjectContext {
    /// Posts ``ObjectsDidChange`` for everything changed since the last call, if anything changed.
    ///
    /// Called at the end of every ``perform(_:)->()`` block, before saving, after merging, and (for changes made
    /// directly) at the end of the current queue turn, as Core Data does at the end of a run-loop event.
    public func processPendingChanges() {
        checkQueue("processPendingChanges()")
        defer { undoEventDidEnd() }
        isProcessingScheduled = false
        guard !pending.isEmpty || pending.objectIDsChanged else { return }
        let changes = pending
        pending = PendingChanges()
        notifyObjectsDidChange(ObjectsDidChange(changes))
    }

    /// Called when a registered object's ID changed: the next event says so (see
    /// ``PendingChanges/objectIDsChanged``), and is due at the end of this turn of the queue.
    func objectIDDidChange() {
        objectIDGeneration &+= 1
        pending.objectIDsChanged = true
        scheduleProcessing()
    }

    /// Tells the observers that follow object IDs, now, that IDs changed (if they did since the last event),
    /// leaving any other pending change for the next event: a save ends with it, so that fetched-results
    /// controllers hold the saved objects' permanent IDs (and report a reordering) when `save()` returns.
    func deliverObjectIDChanges() {
        guard pending.objectIDsChanged else { return }
        pending.objectIDsChanged = false
        var changes = PendingChanges()
        changes.objectIDsChanged = true
        notifyObjectsDidChange(ObjectsDidChange(changes))
    }

    /// Makes sure pending changes are processed at the end of the current turn of the context's queue.
    func scheduleProcessing() {
        guard !isProcessingScheduled else { return }
        isProcessingScheduled = true
        queue.async { [weak self] in
            guard let self, self.isProcessingScheduled else { return }
            self.processPendingChanges()
        }
    }

    /// Forgets every registered object and every unsaved change. Observers are told that all objects were
    /// invalidated (a fetched-results controller must fetch again).
    public func reset() {
        checkQueue("reset()")
        for object in registry.values {
            object.managedObjectContext = nil
            // Break the reference cycles that relationships with inverses form.
            object.relationshipSlots = object.relationshipSlots.map { _ in .fault }
        }
        emptyRegistry(keepingCapacity: true)
        insertedObjectsByIdentity.removeAll()
        updatedObjectsByIdentity.removeAll()
        deletedObjectsByIdentity.removeAll()
        pending = PendingChanges()
        pending.invalidatedAll = true
        processPendingChanges()
        undoDiscardAllActions()
    }

    /// Discards unsaved changes: inserted objects are dropped, deleted ones restored, updated ones put back
    /// to their saved values.
    public func rollback() {
        checkQueue("rollback()")
        for object in insertedObjectsByIdentity.values {
            registry[object.objectID] = nil
            object.markDiscarded()
            pending.note(object, .deleted)
        }
        for object in updatedObjectsByIdentity.values where !object.deletedFlag {
            object.revertToSavedValues()
            object.discardRelationshipChanges()
            pending.note(object, .refreshed)
        }
        for object in deletedObjectsByIdentity.values {
            object.markUndeleted()
            object.revertToSavedValues()
            object.discardRelationshipChanges()
            pending.note(object, .inserted)
        }
        insertedObjectsByIdentity.removeAll()
        updatedObjectsByIdentity.removeAll()
        deletedObjectsByIdentity.removeAll()
        processPendingChanges()
        undoDiscardAllActions()
    }

    /// Loads a fault's values from the store; a fault whose row is gone becomes a deleted object with
    /// default values (Core Data's `shouldDeleteInaccessibleFaults`).
    ///
    /// A read that *fails* (a lock held past the busy timeout, an I/O error) says nothing about the row: the
    /// object stays a fault — its values read as the defaults meanwhile, and the next access tries again — and
    /// the error is kept in ``lastFaultError``. It is never taken for a deletion.
    func fulfillFault(_ object: ManagedObject) {
        let holdsValues = object.faultHoldsValues
        object.becomeLoaded()
        if holdsValues {
            object.awakeFromFetch()
            return
        }
        let read: RowSnapshot?
        do {
            read = try objectSource().rows(for: [object.objectID], entity: object.entity).first
        } catch {
            object.becomeFault()
            lastFaultError = error
            return
        }
        guard let row = read else {
            object.markDeleted()
            return
        }
        object.storage = row.values
        object.committed = row.values
        object.rowVersion = row.version
        object.adoptStoredRelationships(row)
        object.awakeFromFetch()
    }

    /// The registered object for a stored row, created (and registered) from the row when there is none.
    /// A registered object keeps its in-memory state, as Core Data does. With `asFault`, a new object is a
    /// fault holding the row's values (firing it costs no query); with `withValues` false, a bare fault.
    func materialize(_ row: borrowing RowSnapshot, entity: EntityDescription, asFault: Bool, withValues: Bool = true)
        -> ManagedObject
    {
        if let existing = registry[row.objectID] { return loaded(existing, from: row) }
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        guard asFault || !withValues else { return registerFetched(object, row) }
        object.identity = row.objectID
        object.managedObjectContext = self
        if withValues { object.adoptRow(row) }
        object.becomeFault(holdingValues: withValues)
        registry[row.objectID] = object
        return object
    }

    /// The registered object for a stored row, created fully loaded when there is none.
    func materialize(_ row: RowSnapshot, entity: EntityDescription) -> ManagedObject {
        if let existing = registry[row.objectID] { return loaded(existing, from: row) }
        return materializeUnregistered(row, entity: entity)
    }

    /// A new, fully loaded object for a stored row that has no registered object (the caller looked).
    func materializeUnregistered(_ row: RowSnapshot, entity: EntityDescription) -> ManagedObject {
        registerFetched(entity.managedObjectClass.init(entity: entity, insertInto: nil), row)
    }

    /// A registered object for a stored row: a fault is filled from the row; any other object keeps its
    /// in-memory state.
    private func loaded(_ existing: ManagedObject, from row: borrowing RowSnapshot) -> ManagedObject {
        if existing.faultFlag {
            existing.becomeLoaded()
            existing.adoptRow(row)
            existing.awakeFromFetch()
        }
        return existing
    }

    /// Registers `object`, just created for `row` and of no context yet, as the row's loaded object.
    private func registerFetched(_ object: ManagedObject, _ row: borrowing RowSnapshot) -> ManagedObject {
        // A new object belongs to no context, so giving it its permanent ID changes no ID a context knows.
        object.identity = row.objectID
        object.managedObjectContext = self
        object.adoptRow(row)
        registry[row.objectID] = object
        object.awakeFromFetch()
        return object
    }
}

extension ManagedObject {
    /// Forgets unsaved attribute and relationship changes: relationships are read from the store again.
    func discardRelationshipChanges() {
        changedAttributes = []
        changedRelationships = []
        relationshipSlots = relationshipSlots.map { _ in .fault }
        storedToMany = [:]
    }

    /// Takes a stored row's values, version and relationships (see ``adoptStoredRelationships(_:)``).
    func adoptRow(_ row: borrowing RowSnapshot) {
        storage = row.values
        committed = row.values
        rowVersion = row.version
        adoptStoredRelationships(row)
    }

    /// Takes a stored row's to-one destinations, and turns relationships not changed here into faults.
    func adoptStoredRelationships(_ row: RowSnapshot) {
        for index in entity.relationships.indices {
            if index < row.toOne.count { storedToOne[index] = row.toOne[index] }
            if !changedRelationships.contains(index) { relationshipSlots[index] = .fault }
        }
        if !storedToMany.isEmpty { storedToMany = storedToMany.filter { changedRelationships.contains($0.key) } }
    }
}

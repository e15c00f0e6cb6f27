import Foundation

/// A child context's source: its parent context, asked on the parent's queue. What the child reads is the
/// parent's current state, unsaved changes included, exactly as Core Data mediates a child's fetches.
///
/// What the parent has no unsaved changes to is simply what the parent's own source holds, so such reads go
/// straight through to that source (for a root parent, the stores) instead of making an object in the parent
/// for every row: a child's list of a million rows reads about as fast as the parent's would, and leaves no
/// objects behind in the parent. Only what the parent has changed comes from its objects.
///
/// After each answer the child adopts any permanent IDs the parent's objects got meanwhile, so rows that
/// name objects by their new permanent IDs meet the same objects in the child.
struct ParentContextObjectSource: ObjectSource {
    let parent: ManagedObjectContext
    let child: ManagedObjectContext
    /// Whether the child adopts new permanent IDs after each answer. Off for a read made off the child's
    /// queue (a controller's background fetch), where the child adopts them once the results are back on it.
    var adoptsInChild = true

    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        try readRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit, offset: offset,
            includesSubentities: includesSubentities, stores: stores)
        { source throws(ObjectGraphError) in
            try source.fetch(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit,
                offset: offset, includesSubentities: includesSubentities, stores: stores)
        } fromParentRows: { $0 }
    }

    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow] {
        try readRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: limit, offset: offset,
            includesSubentities: includesSubentities, stores: stores)
        { source throws(ObjectGraphError) in
            try source.fetchKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys,
                limit: limit, offset: offset, includesSubentities: includesSubentities, stores: stores, model: model)
        } fromParentRows: { rows in
            KeyedRow.reduce(rows, keys: keys, fallback: entity, model: model)
        }
    }

    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, stores: [PersistentStore]?, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        // The rows are visited on the parent's queue: the parent cannot change while they are read.
        try readRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, limit: 0, offset: 0,
            includesSubentities: includesSubentities, stores: stores)
        { source throws(ObjectGraphError) in
            try source.visitKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys,
                includesSubentities: includesSubentities, stores: stores, model: model, visit: visit)
        } fromParentRows: { rows throws(ObjectGraphError) in
            for row in KeyedRow.reduce(rows, keys: keys, fallback: entity, model: model) {
                try visit(row.objectID, row.values)
            }
        }
    }

    /// A fetch's answer, on the parent's queue: read `fromSource` — the parent's own — when the parent has no
    /// unsaved changes of the entity, else made `fromParentRows`, the rows of the parent's objects that match
    /// (and the child notes that an ancestor answered from unsaved changes).
    private func readRows<T>(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, stores: [PersistentStore]?,
        fromSource: (any ObjectSource) throws(ObjectGraphError) -> T,
        fromParentRows: ([RowSnapshot]) throws(ObjectGraphError) -> T
    ) throws(ObjectGraphError) -> T {
        let parent = parent
        return try onParentQueue { () throws(ObjectGraphError) in
            if let source = try parent.sourceOfUnchangedRows(of: entity, includesSubentities: includesSubentities,
                in: stores)
            {
                return try reading(source, fromSource)
            }
            child.noteReadOfUnsavedAncestorState()
            return try fromParentRows(parent.rowsForChild(entity: entity, predicate: predicate,
                sortCriteria: sortCriteria, limit: limit, offset: offset, includesSubentities: includesSubentities,
                stores: stores))
        }
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool,
        stores: [PersistentStore]?, limit: Int) throws(ObjectGraphError) -> Int
    {
        var request = FetchRequest<ManagedObject>(entityName: entity.name)
        request.predicate = predicate
        request.fetchLimit = max(limit, 0)
        request.includesSubentities = includesSubentities
        request.affectedStores = stores
        let parent = parent
        return try onParentQueue { () throws(ObjectGraphError) in try parent.count(for: request) }
    }

    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let parent = parent
        return try onParentQueue { () throws(ObjectGraphError) in
            let (rows, unchanged, sawChanges) = parent.partitionForChild(ids) { parent.snapshotForChild($0) }
            if sawChanges { child.noteReadOfUnsavedAncestorState() }
            guard !unchanged.isEmpty else { return rows }
            return try rows + reading(parent.objectSource()) { source throws(ObjectGraphError) in
                try source.rows(for: unchanged, entity: entity)
            }
        }
    }

    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        try relatedIDs(ofMany: [objectID], entity: entity, relationshipIndex: relationshipIndex)[objectID] ?? []
    }

    func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        let parent = parent
        return try onParentQueue { () throws(ObjectGraphError) in
            // An unregistered owner's relationship can still name objects the parent deleted: only a parent with
            // no unsaved changes at all answers for it from its source.
            guard !parent.hasChanges else {
                child.noteReadOfUnsavedAncestorState()
                var result: [ManagedObjectID: [ManagedObjectID]] = [:]
                for id in objectIDs {
                    guard let object = parent.objectForChild(id) else { continue }
                    result[id] = parent.relatedIDsForChild(of: object, relationshipIndex: relationshipIndex)
                }
                return result
            }
            let (found, unchanged, _) = parent.partitionForChild(objectIDs) { object in
                parent.relatedIDsForChild(of: object, relationshipIndex: relationshipIndex)
                    .map { (object.objectID, $0) }
            }
            var result = Dictionary(found, uniquingKeysWith: { first, _ in first })
            if !unchanged.isEmpty {
                let read = try reading(parent.objectSource()) { source throws(ObjectGraphError) in
                    try source.relatedIDs(ofMany: unchanged, entity: entity, relationshipIndex: relationshipIndex)
                }
                result.merge(read) { first, _ in first }
            }
            // Answered under the IDs the child asked with.
            for id in objectIDs where result[id] == nil {
                if let permanent = parent.temporaryIDs[id], let related = result[permanent] { result[id] = related }
            }
            return result
        }
    }

    /// Reads `source` — the parent's own — with `body` (on the parent's queue). When the parent is a child
    /// too and its ancestors answered from their unsaved changes, so did this read.
    private func reading<T>(_ source: any ObjectSource, _ body: (any ObjectSource) throws(ObjectGraphError) -> T)
        throws(ObjectGraphError) -> T
    {
        let before = parent.readsOfUnsavedAncestorState.load(ordering: .relaxed)
        let result = try body(source)
        if parent.readsOfUnsavedAncestorState.load(ordering: .relaxed) != before {
            child.noteReadOfUnsavedAncestorState()
        }
        return result
    }

    /// Runs `body` on the parent's queue (inline when already there) and hands back its result.
    private func onParentQueue<T>(_ body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        let result: Result<T, ObjectGraphError> = parent.performAndWait {
            parent.adoptPendingPermanentIDs()
            do throws(ObjectGraphError) { return .success(try body()) } catch { return .failure(error) }
        }
        if adoptsInChild { child.adoptPendingPermanentIDs() }
        return try result.get()
    }
}

extension ManagedObjectContext {
    /// Counts a read by this child context that an ancestor answered from its unsaved changes.
    fileprivate func noteReadOfUnsavedAncestorState() {
        readsOfUnsavedAncestorState.add(1, ordering: .relaxed)
    }

    /// This context's own source, when it has no unsaved changes a fetch of `entity` would overlay (the same
    /// test its own fetches make): its children's fetches then read that source directly. Nil otherwise.
    fileprivate func sourceOfUnchangedRows(
        of entity: EntityDescription, includesSubentities: Bool, in stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> (any ObjectSource)? {
        guard pendingObjects(of: entity, includesSubentities: includesSubentities, in: stores).isEmpty else {
            return nil
        }
        return try objectSource()
    }

    /// The rows a child's fetch sees, made from this context's objects (its unsaved changes included).
    fileprivate func rowsForChild(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool, stores: [PersistentStore]?
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        var request = FetchRequest<ManagedObject>(entityName: entity.name)
        request.predicate = predicate
        request.sortCriteria = sortCriteria
        request.fetchLimit = limit
        request.fetchOffset = offset
        request.includesSubentities = includesSubentities
        request.affectedStores = stores
        return try fetch(request).compactMap { snapshotForChild($0) }
    }

    /// Splits the IDs a child asks about: objects registered here with their state in memory are answered
    /// by `answer` (nothing for a deleted one); the others — unregistered, or faults, whose state is their
    /// saved row — are returned by the IDs this context's source knows them by. `sawChanges`: whether any
    /// of the objects has unsaved changes here (a deletion included).
    fileprivate func partitionForChild<Answer>(
        _ ids: [ManagedObjectID], answer: (ManagedObject) -> Answer?
    ) -> (answers: [Answer], unchanged: [ManagedObjectID], sawChanges: Bool) {
        var answers: [Answer] = []
        var unchanged: [ManagedObjectID] = []
        var sawChanges = false
        for id in ids {
            if let object = registered(id) {
                if object.deletedFlag || object.insertedFlag || object.isUpdated { sawChanges = true }
                if object.deletedFlag { continue }
                if object.faultFlag {
                    unchanged.append(object.objectID)
                } else if let answered = answer(object) {
                    answers.append(answered)
                }
            } else {
                unchanged.append(temporaryIDs[id] ?? id)
            }
        }
        return (answers, unchanged, sawChanges)
    }

    /// The destinations of a to-many relationship of `object` as a child sees them (deleted ones left out);
    /// nil when the entity has no such relationship or the object is deleted.
    fileprivate func relatedIDsForChild(of object: ManagedObject, relationshipIndex: Int) -> [ManagedObjectID]? {
        guard !object.deletedFlag, relationshipIndex < object.entity.relationships.count else { return nil }
        return object.loadedToMany(relationshipIndex).items.filter { !$0.deletedFlag }.map(\.objectID)
    }
}

import Foundation

extension AnyFetchedResultsController {
    /// Fetches the results and starts tracking changes (while there is a delegate).
    ///
    /// With a ``cacheName`` the controller first looks for its section cache: when the cache was written
    /// for the same request, section naming, model version and store contents, the results come from it
    /// without a query; otherwise they are fetched and the cache is rewritten (unless another context saved
    /// to the stores while they were read). The cache holds the stores' rows, so it is neither read nor
    /// written while the context has unsaved changes to the fetched entities; a child context reads it only
    /// while its ancestors have none either, and writes the results it fetched only when none of them answered
    /// the read from unsaved changes (``writeCache()`` writes them in any case, when the ancestors have none
    /// by then). With a
    /// ``FetchRequest/fetchBatchSize`` the fetch reads only IDs, sort keys and section keys (when these are
    /// stored attributes), and objects are loaded a batch at a time when first asked for; when nothing tracks
    /// the controller, it reads and keeps only the IDs and section runs, streamed from the store (see
    /// ``delegate`` for what happens when tracking starts later).
    ///
    /// With a ``FetchedResultsControllerSnapshotDelegate`` the delegate receives the first snapshot.
    ///
    /// - Throws: ``ObjectGraphError/missingSortCriteria`` without sort criteria,
    ///   ``ObjectGraphError/sectionsOutOfOrder(index:sectionName:)`` when the first sort criterion does
    ///   not keep sections together (Core Data's error 134060), or any fetch error. A fetch that throws
    ///   leaves the controller's results, sections and tracking as they were before it.
    public func performFetch() throws(ObjectGraphError) {
        guard !fetchRequest.sortCriteria.isEmpty else { throw .missingSortCriteria }
        managedObjectContext.checkQueue("performFetch()")
        guard let model = managedObjectContext.persistentStoreCoordinator?.managedObjectModel else {
            throw .noCoordinator(context: "\(managedObjectContext)")
        }
        guard let entity = model.entity(named: fetchRequest.entityName) else {
            throw .unknownEntity(fetchRequest.entityName)
        }
        cancelBackgroundFetch()
        let previous = resultsState
        do {
            try replaceResults(entity: entity, model: model)
        } catch {
            restore(previous)
            throw error
        }
        hasFetched = true
        missedChanges = false
        if observation == nil {
            observation = managedObjectContext.addObjectsDidChangeObserver(followingObjectIDs: true) {
                [weak self] change in
                self?.contextDidChange(change)
            }
        }
        reportInitialSnapshot()
    }

    /// The fetch itself: the results, their order, sections and tracking made anew from the request (from the
    /// section cache when it is current), and the cache rewritten from fetched results.
    private func replaceResults(entity: EntityDescription, model: ManagedObjectModel) throws(ObjectGraphError) {
        plan = FetchPlan(request: fetchRequest, sectionNaming: sectionNaming, entity: entity, model: model,
            coordinator: managedObjectContext.persistentStoreCoordinator)
        keyAttributePositionsByEntity = [:]
        loadedBatches = []
        names = SectionNames()
        namespaces = IDNamespaces()

        pendingCachedResults = nil
        untrackedResults = nil
        let cache = usableSectionCache(for: fetchRequest, trackedEntityNames: trackedEntityNames, model: model)
        if let cached = cache?.load(into: &names, namespaces: &namespaces) {
            // The first screen needs the runs and the first entries; the rest is read on another thread
            // and joins the results when something first needs them (see `settleCachedResults()`).
            if let tail = cached.tail {
                index = ResultsIndex()
                pendingCachedResults = PendingCachedResults(count: cached.count, head: cached.head, tail: tail)
            } else {
                index = ResultsIndex(sorted: cached.head)
            }
            runs = cached.runs
            orderBytesByIDStorage = nil
            temporaryPlacements = TemporaryPlacements()
            resultsCameFromCache = true
            cacheIsStale = false
        } else if mayFetchUntracked(entity: entity, model: model, storeCount: plan.storeCount) {
            try fetchUntracked(entity: entity, model: model)
            resultsCameFromCache = false
            cacheIsStale = false
        } else {
            // Fetched results, in order, are written to the section cache unless a save came in meanwhile, or (in
            // a child context) an ancestor answered the read from its unsaved changes.
            let ancestorReads = managedObjectContext.readsOfUnsavedAncestorState.load(ordering: .relaxed)
            let stamp = cache?.fingerprintBeforeReading()
            let placed = try placeFetchedEntries(try fetchEntries(entity: entity, model: model))
            resultsCameFromCache = false
            let writable = managedObjectContext.readsOfUnsavedAncestorState.load(ordering: .relaxed) == ancestorReads
                ? cache : nil
            // (Results the cache does not hold yet are written by `writeCache()`.)
            let written = writable?.store(placed, names: names, namespaces: namespaces, readAt: stamp) ?? false
            cacheIsStale = cacheName != nil && !written
        }
    }

    /// The results as the store and the context's unsaved changes give them (not from the cache).
    func fetchEntries(entity: EntityDescription, model: ManagedObjectModel) throws(ObjectGraphError)
        -> [ResultsEntry]
    {
        if plan.readsKeysOnly, let rowEntries = try entriesFromRows(entity: entity, model: model) {
            // The rows were read whole (unsaved changes join them in memory): offset and limit apply to the
            // merged order, as a fetch applies them.
            let (offset, limit) = (max(fetchRequest.fetchOffset, 0), fetchRequest.fetchLimit)
            guard offset > 0 || limit > 0 else { return rowEntries }
            var sorted = rowEntries
            if !ResultsEntry.areInOrder(sorted) { sorted.sort { RowOrdering.compare($0.order, $1.order) < 0 } }
            let kept = sorted.dropFirst(offset)
            return Array(limit > 0 ? kept.prefix(limit) : kept)
        }
        return try managedObjectContext.fetch(fetchRequest).map(makeEntry(for:))
    }

    /// Makes fetched `entries` the results: in order, sections checked, the ID lookup built.
    ///
    /// - Returns: the entries in order (what the section cache is written from).
    @discardableResult
    func placeFetchedEntries(_ fetched: [ResultsEntry]) throws(ObjectGraphError) -> [ResultsEntry] {
        var entries = fetched
        if !ResultsEntry.areInOrder(entries) {
            entries.sort { RowOrdering.compare($0.order, $1.order) < 0 }
        }
        try Self.checkSectionsAreContiguous(entries, names: names)
        index = ResultsIndex(sorted: entries)
        runs = SectionRuns(of: entries)
        orderBytesByIDStorage = nil
        _ = orderBytesByID
        temporaryPlacements = TemporaryPlacements()
        for entry in entries where namespaces.isTemporary(entry.placed) {
            let id = namespaces.id(for: entry.placed)
            if let object = managedObjectContext.registered(id) {
                temporaryPlacements[ObjectIdentifier(object)] = (object, id)
            }
        }
        return entries
    }

    /// Throws Core Data's error 134060 when a section name comes back after another section.
    static func checkSectionsAreContiguous(_ entries: [ResultsEntry], names: SectionNames) throws(ObjectGraphError) {
        var seen: Set<Int32> = []
        var last: Int32?
        for (offset, entry) in entries.enumerated() where entry.section != last {
            guard seen.insert(entry.section).inserted else {
                throw .sectionsOutOfOrder(index: offset, sectionName: names[entry.section])
            }
            last = entry.section
        }
    }

    /// The entries read straight from the store's rows, without objects, plus the context's unsaved
    /// changes; nil when a sort or section key is not a stored attribute of the row (then objects are
    /// needed to read it).
    private func entriesFromRows(entity: EntityDescription, model: ManagedObjectModel)
        throws(ObjectGraphError) -> [ResultsEntry]?
    {
        guard keysAreStoredAttributes(model: model) else { return nil }
        let keys = fetchRequest.sortCriteria.map(\.key) + (sectionNaming?.keys ?? [])
        let context = managedObjectContext
        let pending = pendingTrackedObjects()
        let pendingIDs = Set(pending.map(\.objectID))
        var entries: [ResultsEntry] = []
        let criteria = fetchRequest.sortCriteria
        let (naming, ordering) = (sectionNaming, ordering)
        // Streamed: each row becomes its entry at once, so a million rows are never held as rows; the numbering
        // tables are local while rows arrive and stored back after.
        var (names, namespaces) = (names, namespaces)
        try context.objectSource().visitKeyedRows(
            entity: entity, predicate: fetchRequest.predicate, sortCriteria: criteria, keys: keys,
            includesSubentities: fetchRequest.includesSubentities, stores: fetchRequest.affectedStores, model: model)
        { id, values throws(ObjectGraphError) in
            guard pendingIDs.isEmpty || !pendingIDs.contains(id) else { return }
            entries.append(ResultsEntry(row: id, values: values, criteria: criteria, naming: naming, ordering: ordering,
                names: &names, namespaces: &namespaces))
        }
        (self.names, self.namespaces) = (names, namespaces)
        for object in pending where !object.isDeleted && (fetchRequest.predicate?.evaluate(with: object) ?? true) {
            entries.append(makeEntry(for: object))
        }
        return entries
    }

    /// Whether every sort and section key is a stored attribute of every fetched entity, so that the keys
    /// can be read from the store's rows without making objects.
    func keysAreStoredAttributes(model: ManagedObjectModel) -> Bool {
        keysAreStoredAttributes(model: model, among: trackedEntityNames)
    }

    /// The same, for a fetch that tracks the entities named `tracked`.
    func keysAreStoredAttributes(model: ManagedObjectModel, among tracked: Set<String>) -> Bool {
        let keys = fetchRequest.sortCriteria.map(\.key) + (sectionNaming?.keys ?? [])
        return tracked.compactMap { model.entity(named: $0) }.allSatisfy { entity in
            keys.allSatisfy { entity.attributeIndex(named: $0) != nil }
        }
    }

    /// The context's unsaved objects that a fetch places among the store's rows (none when the request
    /// leaves pending changes out).
    func pendingTrackedObjects() -> Set<ManagedObject> { pendingTrackedObjects(among: trackedEntityNames) }

    /// The same, for a fetch that tracks the entities named `tracked`.
    func pendingTrackedObjects(among tracked: Set<String>) -> Set<ManagedObject> {
        guard fetchRequest.includesPendingChanges else { return [] }
        let context = managedObjectContext
        return context.insertedObjects.union(context.updatedObjects).union(context.deletedObjects)
            .filter { tracked.contains($0.entity.name) && context.isInStores($0, fetchRequest.affectedStores) }
    }
}

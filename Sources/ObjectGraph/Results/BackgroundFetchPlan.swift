import Foundation

/// Calls a background fetch makes on its thread: before it reads the store, after it built its results (before
/// they are put in place or written to a section cache), and after the cache write. For tests, which change the
/// context at those moments or wait for them.
struct BackgroundFetchHooks: Sendable {
    var willRead: @Sendable () -> Void = {}
    var didRead: @Sendable () -> Void = {}
    /// After the results were written to the section cache (or found not to belong there).
    var didWriteCache: @Sendable () -> Void = {}
}

/// The results a background fetch builds, ready to be put in place on the context's queue.
struct BackgroundFetchResults: Sendable {
    let index: ResultsIndex
    let runs: SectionRuns
    let names: SectionNames
    let namespaces: IDNamespaces
    let orderBytesByID: OrderBytesByID
    /// The results under temporary IDs (a parent context's unsaved objects): they get new IDs when saved.
    let temporaryIDs: [ManagedObjectID]
    /// The section cache to write from the results, if the controller keeps one.
    let cacheWrite: SectionCacheWrite?
}

/// Results of a background fetch to be written to the controller's section cache: on the fetching thread,
/// while the results are put in place on the context's queue.
struct SectionCacheWrite: Sendable {
    let cache: FetchedResultsCache
    let entries: [ResultsEntry]
    let names: SectionNames
    let namespaces: IDNamespaces
    /// The stores' fingerprint before the rows were read: a save since then keeps the results out of the cache.
    let fingerprintBeforeReading: String?

    /// Writes the cache, unless the stores changed since the rows were read; returns whether it wrote it.
    func perform() -> Bool {
        cache.store(entries, names: names, namespaces: namespaces, readAt: fingerprintBeforeReading)
    }
}

/// What a background fetch runs on another thread to build its results: a read of the store
/// (``BackgroundFetchPlan``) or a test of the current results against a narrower request (``NarrowingFetchPlan``).
protocol BackgroundResultsReader: Sendable {
    /// Builds the results; throws ``ObjectGraphError/fetchCancelled`` once `ticket` is cancelled.
    func run(_ ticket: FetchTicket) throws(ObjectGraphError) -> BackgroundFetchResults
    /// Calls made on the fetching thread (for tests).
    var hooks: BackgroundFetchHooks? { get }
}

/// What a background fetch reads and how it turns rows into results: everything it needs, copied on the
/// context's queue, so that it runs on another thread without touching the context or the controller.
struct BackgroundFetchPlan: BackgroundResultsReader {
    /// Where the rows come from: the coordinator's stores, or a parent context (asked on its own queue).
    let source: any ObjectSource
    let entity: EntityDescription
    let model: ManagedObjectModel
    let request: FetchRequest<ManagedObject>
    /// The sort keys, then the section naming's keys: the values each row is read with.
    let keys: [String]
    let sectionNaming: SectionNaming?
    let ordering: RowOrdering
    /// Objects with unsaved changes in the context: their rows are left out (they are placed from memory).
    let leftOut: Set<ManagedObjectID>
    /// The section cache the results are written to, when the controller has one it may use.
    let cache: FetchedResultsCache?
    /// For a child context, its count of reads an ancestor answered from unsaved changes
    /// (``ManagedObjectContext/readsOfUnsavedAncestorState``): results read while it moved are not cached.
    let readsOfUnsavedAncestorState: (@Sendable () -> Int)?
    /// Called on the fetching thread (tests use them to change the context at chosen moments).
    let hooks: BackgroundFetchHooks?

    /// How many rows are read between two looks at the ticket.
    private static let rowsPerCancellationCheck = 4096

    /// Reads the rows and builds the results: entries, their order, the sections (checked to be
    /// contiguous), the index and the order lookup, and what to write to the section cache, if any.
    ///
    /// - Throws: ``ObjectGraphError/fetchCancelled`` once `ticket` is cancelled, or the fetch's error.
    func run(_ ticket: FetchTicket) throws(ObjectGraphError) -> BackgroundFetchResults {
        let stamp = cache?.fingerprintBeforeReading()
        let ancestorReads = readsOfUnsavedAncestorState?()
        hooks?.willRead()
        defer { hooks?.didRead() }
        var names = SectionNames()
        var namespaces = IDNamespaces()
        var entries: [ResultsEntry] = []
        var temporaryIDs: [ManagedObjectID] = []
        var rowsRead = 0
        let criteria = request.sortCriteria
        let (naming, ordering, leftOut) = (sectionNaming, ordering, leftOut)
        // The store's query is stopped as soon as the ticket is cancelled (see `FetchCancellation`), and a failure
        // then is the cancellation.
        let read = FetchCancellation.$ticket.withValue(ticket) { () -> Result<Void, ObjectGraphError> in
            Result { () throws(ObjectGraphError) in
                try source.visitKeyedRows(
                    entity: entity, predicate: request.predicate, sortCriteria: criteria, keys: keys,
                    includesSubentities: request.includesSubentities, stores: request.affectedStores, model: model)
                { id, values throws(ObjectGraphError) in
                    rowsRead += 1
                    if rowsRead % Self.rowsPerCancellationCheck == 0, ticket.isCancelled { throw .fetchCancelled }
                    guard leftOut.isEmpty || !leftOut.contains(id) else { return }
                    if id.isTemporaryID { temporaryIDs.append(id) }
                    entries.append(ResultsEntry(row: id, values: values, criteria: criteria, naming: naming,
                        ordering: ordering, names: &names, namespaces: &namespaces))
                }
            }
        }
        if ticket.isCancelled { throw .fetchCancelled }
        try read.get()
        if !ResultsEntry.areInOrder(entries) {
            entries.sort { RowOrdering.compare($0.order, $1.order) < 0 }
        }
        try AnyFetchedResultsController.checkSectionsAreContiguous(entries, names: names)
        return BackgroundFetchResults(index: ResultsIndex(sorted: entries), runs: SectionRuns(of: entries), names: names,
            namespaces: namespaces, orderBytesByID: OrderBytesByID(placing: entries, count: entries.count),
            temporaryIDs: temporaryIDs,
            cacheWrite: (readsOfUnsavedAncestorState?() == ancestorReads ? cache : nil).map { SectionCacheWrite(cache: $0, entries: entries, names: names, namespaces: namespaces,
                fingerprintBeforeReading: stamp) })
    }
}

import Foundation

/// A background fetch that narrows the current results: it asks the store which of them match the new request's
/// predicate and keeps those, in their order and sections (see
/// ``AnyFetchedResultsController/performFetchInBackground(narrowingCurrentResults:completion:)``).
///
/// Each group of ``groupSize`` results is one keyed query, `predicate AND SELF IN {…}`, with no sort and no
/// keys read: the store answers it by primary key, with the same predicate code as a full fetch, so a result is
/// kept exactly when the full fetch would find it. Copied on the context's queue (the results are a value), run
/// on another thread.
struct NarrowingFetchPlan: BackgroundResultsReader {
    let source: any ObjectSource
    let entity: EntityDescription
    let model: ManagedObjectModel
    let request: FetchRequest<ManagedObject>
    /// The new request's predicate.
    let predicate: FetchPredicate
    /// The current results, in order.
    let results: ResultsIndex
    let names: SectionNames
    let namespaces: IDNamespaces
    /// Objects with unsaved changes in the context: left out here, placed from memory when the results are
    /// installed.
    let leftOut: Set<ManagedObjectID>
    let hooks: BackgroundFetchHooks?

    /// How many results one query tests.
    static let groupSize = 4000

    func run(_ ticket: FetchTicket) throws(ObjectGraphError) -> BackgroundFetchResults {
        hooks?.willRead()
        defer { hooks?.didRead() }
        var kept: [ResultsEntry] = []
        var groupIDs: [ManagedObjectID] = []
        var groupEntries: [ResultsEntry] = []
        groupIDs.reserveCapacity(Self.groupSize)
        groupEntries.reserveCapacity(Self.groupSize)
        func testGroup() throws(ObjectGraphError) {
            guard !groupIDs.isEmpty else { return }
            if ticket.isCancelled { throw .fetchCancelled }
            // `SELF IN {…}`, built as the parser would build it (parsing thousands of arguments costs more).
            let members = FetchPredicate(.comparison(FetchPredicate.Comparison(.evaluatedObject, .in,
                .aggregate(groupIDs.map { .object($0) }))))
            var matched: Set<ManagedObjectID> = []
            matched.reserveCapacity(groupIDs.count)
            // (The store stops the query as soon as the ticket is cancelled; the failure is then the cancellation.)
            let read = FetchCancellation.$ticket.withValue(ticket) { () -> Result<Void, ObjectGraphError> in
                Result { () throws(ObjectGraphError) in
                    try source.visitKeyedRows(entity: entity, predicate: .and([predicate, members]), sortCriteria: [],
                        keys: [], includesSubentities: request.includesSubentities, stores: request.affectedStores,
                        model: model)
                    { id, _ throws(ObjectGraphError) in
                        matched.insert(id)
                    }
                }
            }
            if ticket.isCancelled { throw .fetchCancelled }
            try read.get()
            for (id, entry) in zip(groupIDs, groupEntries) where matched.contains(id) { kept.append(entry) }
            groupIDs.removeAll(keepingCapacity: true)
            groupEntries.removeAll(keepingCapacity: true)
        }
        for chunk in results.chunks {
            for entry in chunk.entries {
                let id = namespaces.id(for: entry.placed)
                if !leftOut.isEmpty, leftOut.contains(id) { continue }
                groupIDs.append(id)
                groupEntries.append(entry)
                if groupIDs.count == Self.groupSize { try testGroup() }
            }
        }
        try testGroup()
        if ticket.isCancelled { throw .fetchCancelled }
        // (Kept in the results' order, so their sections stay contiguous.)
        return BackgroundFetchResults(index: ResultsIndex(sorted: kept), runs: SectionRuns(of: kept), names: names,
            namespaces: namespaces, orderBytesByID: OrderBytesByID(placing: kept, count: kept.count),
            temporaryIDs: [], cacheWrite: nil)
    }
}

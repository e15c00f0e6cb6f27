import Foundation
import SectionedChanges

/// A fetched-results controller without its result type: what delegates receive.
///
/// Use ``FetchedResultsController`` to create one. The controller fetches the objects its request
/// describes, groups them into sections, and — while it has a delegate — keeps them up to date as its
/// context changes (local edits, saves, merges from other contexts), reporting each change batch to the
/// delegate with UIKit-correct index paths.
///
/// It keeps object IDs with their sort keys and section, not the objects: objects are looked up in the
/// context when asked for (with ``FetchRequest/fetchBatchSize`` they are loaded a batch at a time and
/// released again when their batch is no longer used). A batch of k changes into n results costs
/// O(k log n).
///
/// It lives on its context's queue: create it, read it and let it call its delegate there.
open class AnyFetchedResultsController {
    /// The request whose results the controller holds. Change it only before ``performFetch()``, or
    /// delete the cache (if any) and call ``performFetch()`` again after changing it.
    public var fetchRequest: FetchRequest<ManagedObject>
    /// The context the controller fetches from and listens to.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; nil for one unnamed section or a derived
    /// ``SectionNaming``.
    public var sectionNameKeyPath: String? {
        if case .keyPath(let key)? = sectionNaming?.kind { return key }
        return nil
    }
    /// How sections are named; nil for one unnamed section.
    public let sectionNaming: SectionNaming?
    /// The name of the controller's persistent section cache, or nil for none. See ``performFetch()``.
    public let cacheName: String?
    /// Where this controller keeps its section cache: the process-wide
    /// ``AnyFetchedResultsController/cacheDirectory-type.property`` as it was when the controller was created, unless set.
    /// (Core Data keeps every cache in the app's caches folder; a program that opens several stores, or tests
    /// that run side by side, may want their own.)
    public var cacheDirectory: URL
    /// Receives change batches. Without a delegate the results stay as fetched (Core Data's rule); a
    /// delegate whose ``FetchedResultsControllerDelegate/tracksChanges`` is false does not turn tracking on.
    ///
    /// Setting a delegate that tracks changes on a controller fetched without one reads the sort and
    /// section keys of the results (one keyed fetch); if the results changed since they were fetched, the
    /// new delegate hears the difference as one change batch.
    public weak var delegate: (any FetchedResultsControllerDelegate)? {
        didSet { startTrackingUntrackedResults() }
    }

    /// The results in order. Reading it waits for a section cache still being read (see
    /// ``pendingCachedResults``); setting it drops such a read.
    var index: ResultsIndex {
        get {
            settleCachedResults()
            return indexStorage
        }
        set {
            pendingCachedResults = nil
            indexStorage = newValue
        }
        _modify {
            settleCachedResults()
            yield &indexStorage
        }
    }
    // The results' state below is read and written for every object of every change batch. Release builds
    // skip the run-time exclusivity check on it (a few percent of a batch's instructions; see
    // ``ManagedObject/storage``), debug builds, which run the tests, keep it. It is confined to the context's
    // queue, and nothing that runs inside an access to one of these properties reaches it again: the delegate
    // and change streams are called only once a batch has been applied.
    #if DEBUG
    /// The results' placement as a value: their index, section runs and placed orders (see ``ResultsCore``).
    var core = ResultsCore()
    /// The section names, interned: entries and runs hold their numbers.
    var names = SectionNames()
    /// The compact IDs of the results (``ResultID``) and what their namespaces stand for.
    var namespaces = IDNamespaces()
    /// Results placed under a temporary ID, by object: their ID changes when they are saved.
    var temporaryPlacements = TemporaryPlacements()
    /// The entity ``keyAttributePositions(of:)`` answered for last, and its answer.
    var lastKeyAttributePositions: (entity: EntityDescription, places: KeyAttributePositions)?
    /// The entity ``tracks(_:)`` answered for last, and its answer.
    var lastTrackedEntity: (entity: EntityDescription, tracked: Bool)?
    #else
    /// The results' placement as a value: their index, section runs and placed orders (see ``ResultsCore``).
    @exclusivity(unchecked) var core = ResultsCore()
    /// The section names, interned: entries and runs hold their numbers.
    @exclusivity(unchecked) var names = SectionNames()
    /// The compact IDs of the results (``ResultID``) and what their namespaces stand for.
    @exclusivity(unchecked) var namespaces = IDNamespaces()
    /// Results placed under a temporary ID, by object: their ID changes when they are saved.
    @exclusivity(unchecked) var temporaryPlacements = TemporaryPlacements()
    /// The entity ``keyAttributePositions(of:)`` answered for last, and its answer.
    @exclusivity(unchecked) var lastKeyAttributePositions: (entity: EntityDescription, places: KeyAttributePositions)?
    /// The entity ``tracks(_:)`` answered for last, and its answer.
    @exclusivity(unchecked) var lastTrackedEntity: (entity: EntityDescription, tracked: Bool)?
    #endif
    /// ``index`` as it stands (empty while a section cache is still being read).
    var indexStorage: ResultsIndex {
        get { core.index }
        set { core.index = newValue }
        _modify { yield &core.index }
    }
    /// Where each section's results start and how many there are.
    var runs: SectionRuns {
        get { core.runs }
        set { core.runs = newValue }
        _modify { yield &core.runs }
    }
    /// The results' IDs in order when they were fetched without change tracking (see
    /// ``fetchUntracked(entity:model:)``); nil when ``index`` holds them. (One of the forms of ``core``:
    /// setting it switches to that form, setting nil leaves it.)
    var untrackedResults: [ResultID]? {
        get {
            if case .untracked(let ids) = core.form { return ids }
            return nil
        }
        set {
            if let newValue {
                core.form = .untracked(newValue)
            } else if case .untracked = core.form {
                core.form = .indexed
            }
        }
    }
    /// Results from a section cache whose body is still being read on another thread: the first screen is
    /// shown from their head. (One of the forms of ``core``, as ``untrackedResults`` is.)
    var pendingCachedResults: PendingCachedResults? {
        get {
            if case .readingCache(let pending) = core.form { return pending }
            return nil
        }
        set {
            if let newValue {
                core.form = .readingCache(newValue)
            } else if case .readingCache = core.form {
                core.form = .indexed
            }
        }
    }
    /// ``orderBytesByID`` once built; nil until then.
    var orderBytesByIDStorage: OrderBytesByID? {
        get { core.orderBytesByID }
        set { core.orderBytesByID = newValue }
        _modify { yield &core.orderBytesByID }
    }
    /// The order bytes each result was placed at (its entry's ``ResultsEntry/order``, sharing its storage),
    /// under the ID it was placed with: how a changed object's old place is found.
    ///
    /// When the results come from the section cache, it is built from the index the first time it is
    /// needed (the first change, or an index-path lookup), not by ``performFetch()``: a million hashed
    /// insertions are most of what showing the first screen from the cache would otherwise cost.
    var orderBytesByID: OrderBytesByID {
        get { builtOrderBytesByID() }
        set { orderBytesByIDStorage = newValue }
        _modify {
            _ = builtOrderBytesByID()
            var orders = orderBytesByIDStorage ?? OrderBytesByID()
            orderBytesByIDStorage = nil
            defer { orderBytesByIDStorage = orders }
            yield &orders
        }
    }

    private func builtOrderBytesByID() -> OrderBytesByID {
        if let orders = orderBytesByIDStorage { return orders }
        let orders = OrderBytesByID(placing: index.chunks.lazy.flatMap(\.entries), count: index.count)
        orderBytesByIDStorage = orders
        return orders
    }
    var hasFetched = false
    /// What the last fetch decided: the results' request, order, tracked entities and related key paths, and
    /// how objects are loaded (see ``FetchPlan``).
    var plan: FetchPlan {
        didSet { lastTrackedEntity = nil }
    }
    /// The request the results were fetched with, which changes are judged against (its predicate and
    /// stores) until a fetch replaces the results: it differs from ``fetchRequest`` while a background fetch
    /// of a changed request runs (see ``performFetchInBackground(completion:)``).
    var resultsRequest: FetchRequest<ManagedObject> { plan.request }
    /// The results' order.
    var ordering: RowOrdering { plan.ordering }
    /// The entities whose objects can be results.
    var trackedEntityNames: Set<String> { plan.trackedEntityNames }
    /// Key paths through relationships whose changes re-place results.
    var relatedPaths: RelatedKeyPaths { plan.relatedPaths }
    /// The background fetch in flight, if any.
    var backgroundFetch: BackgroundFetch?
    /// Whether the last ``performFetchInBackground(completion:)`` read the store on another thread (for tests).
    var lastFetchRanInBackground = false
    /// Whether the last background fetch tested only the current results (see
    /// ``performFetchInBackground(narrowingCurrentResults:completion:)``; for tests).
    var lastFetchNarrowed = false
    /// Calls the next background fetches make on their thread (for tests).
    var backgroundFetchHooks: BackgroundFetchHooks?
    /// The context's ``ManagedObjectContext/objectIDGeneration`` when IDs were last adopted.
    var seenObjectIDGeneration = 0
    /// Attribute positions of the keys the controller reads, per entity (see ``keyAttributePositions(of:)``).
    struct KeyAttributePositions {
        let sort: [Int?]
        /// One per key of the section naming, in its order.
        let section: [Int?]
        /// The attributes the sort and section keys read (``AttributeBits/all`` when one is not a stored
        /// attribute of the entity: a key path, or a key a subclass answers).
        let placing: AttributeBits
    }
    var keyAttributePositionsByEntity: [String: KeyAttributePositions] = [:] {
        didSet { lastKeyAttributePositions = nil }
    }
    var loadedBatches: [Int] = []
    var observation: ObservationToken?
    /// Consumers of ``changes()``; locked because a consumer may stop on any thread.
    let changeContinuations = Locked<[UUID: AsyncStream<FetchedResultsChangeSet>.Continuation]>([:])
    /// Whether results changed since the section cache was last written.
    var cacheIsStale = false
    /// Whether a change went by while nothing tracked the (keyed) results: until the next fetch, a changed
    /// object's keys are then always compared with its place, since they may have changed unseen.
    var missedChanges = false
    /// Whether the last fetch took its results from the section cache (see ``cacheName``) rather than from a
    /// query: for a status line, or to check that a cache serves.
    public internal(set) var resultsCameFromCache = false

    init(
        fetchRequest: FetchRequest<ManagedObject>, managedObjectContext: ManagedObjectContext,
        sectionNaming: SectionNaming?, cacheName: String?
    ) {
        self.fetchRequest = fetchRequest
        self.plan = FetchPlan(unfetched: fetchRequest)
        self.managedObjectContext = managedObjectContext
        self.sectionNaming = sectionNaming
        self.cacheName = cacheName
        self.cacheDirectory = AnyFetchedResultsController.cacheDirectory
    }

    deinit {
        for continuation in changeContinuations.withLock({ Array($0.values) }) { continuation.finish() }
    }

    /// Whether changes are tracked now: there is a delegate that wants them, or an ``changes`` consumer.
    var isTracking: Bool {
        (delegate?.tracksChanges ?? false) || !changeContinuations.withLock { $0.isEmpty }
    }

    // MARK: - Results

    /// All fetched objects in order, or nil before ``performFetch()``. With a batch size, reading this
    /// loads every object; prefer `object(at:)`-style access.
    public var fetchedObjectsUntyped: [ManagedObject]? {
        guard hasFetched else { return nil }
        return (0..<resultCount).map(objectAtGlobalIndex)
    }

    /// The IDs of the fetched objects in order, or nil before ``performFetch()``. Costs no object.
    public var fetchedObjectIDs: [ManagedObjectID]? {
        adoptNewObjectIDs()
        guard hasFetched else { return nil }
        if let untracked = untrackedResults { return untracked.map(namespaces.id(for:)) }
        return index.allEntries.map { namespaces.id(for: $0.placed) }
    }

    /// The number of fetched objects.
    public var numberOfFetchedObjects: Int { resultCount }

    /// The sections, in order (one unnamed section when there is no section naming and any objects).
    public var sections: [FetchedResultsSectionInfo]? {
        adoptNewObjectIDs()
        guard hasFetched else { return nil }
        return (0..<runs.count).map(sectionInfo(at:))
    }

    /// The number of sections.
    public var numberOfSections: Int { runs.count }

    /// The number of objects in `section` (0 outside the sections).
    public func numberOfObjects(inSection section: Int) -> Int {
        section >= 0 && section < runs.count ? runs.counts[section] : 0
    }

    /// The name of `section`.
    public func sectionName(at section: Int) -> String? {
        section >= 0 && section < runs.count ? names[runs.sections[section]] : nil
    }

    func sectionInfo(at section: Int) -> FetchedResultsSectionInfo {
        let name = names[runs.sections[section]]
        let start = runs.start(of: section)
        let range = start..<(start + runs.counts[section])
        return FetchedResultsSectionInfo(name: name, indexTitle: resolvedIndexTitle(forSectionName: name),
            numberOfObjects: range.count) { [weak self] in
                guard let self else { return [] }
                return range.map(self.objectAtGlobalIndex)
            }
    }

    /// The object at `indexPath`.
    ///
    /// - Precondition: `indexPath` is inside the results (a programmer error otherwise, as in Core Data).
    public func untypedObject(at indexPath: IndexPath) -> ManagedObject {
        settleCachedResults(unlessHeadHolds: indexPath)
        guard let offset = globalIndex(of: indexPath) else {
            preconditionFailure("Index path (section \(indexPath.section), row \(indexPath.row)) is outside the "
                + "\(runs.count) section(s) of the fetched results.")
        }
        return objectAtGlobalIndex(offset)
    }

    /// The ID of the object at `indexPath`, or nil outside the results. Costs no object.
    public func objectID(at indexPath: IndexPath) -> ManagedObjectID? {
        adoptNewObjectIDs()
        settleCachedResults(unlessHeadHolds: indexPath)
        return globalIndex(of: indexPath).map { namespaces.id(for: resultID(atGlobalIndex: $0)) }
    }

    /// The index path of `object`, or nil when it is not in the results.
    public func indexPath(forObject object: ManagedObject) -> IndexPath? {
        adoptNewObjectIDs()
        if untrackedResults != nil {
            return namespaces.existingResultID(for: object.objectID).flatMap(untrackedPosition(of:))
                .map(indexPath(forGlobalIndex:))
        }
        guard let (id, order, _) = placement(of: object),
            let offset = index.position(of: id, order: order)
        else { return nil }
        return indexPath(forGlobalIndex: offset)
    }

    /// The index path of the object with `objectID`, or nil when it is not in the results.
    public func indexPath(forObjectID objectID: ManagedObjectID) -> IndexPath? {
        adoptNewObjectIDs()
        if let object = managedObjectContext.registered(objectID) { return indexPath(forObject: object) }
        if untrackedResults != nil {
            return namespaces.existingResultID(for: objectID).flatMap(untrackedPosition(of:))
                .map(indexPath(forGlobalIndex:))
        }
        guard let placed = namespaces.existingResultID(for: objectID), let order = orderBytesByID[placed],
            let offset = index.position(of: placed, order: order)
        else {
            return nil
        }
        return indexPath(forGlobalIndex: offset)
    }

    // MARK: - Index titles

    /// The index title for a section name: by default its first letter, capitalised (Core Data's rule).
    /// Subclasses may override it; the delegate's answer, when it gives one, wins.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        guard let first = sectionName.first else { return nil }
        return String(first).uppercased()
    }

    /// The index titles of all sections, in order and without repeats.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return runs.sections.map { names[$0] }.compactMap(resolvedIndexTitle(forSectionName:))
            .filter { seen.insert($0).inserted }
    }

    /// The section for an index title: the first section with that title (or `index` when none has it).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        runs.sections.firstIndex { resolvedIndexTitle(forSectionName: names[$0]) == title } ?? index
    }

    func resolvedIndexTitle(forSectionName name: String) -> String? {
        delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? sectionIndexTitle(forSectionName: name)
    }

    // MARK: - Positions

    /// The ID an object's result was placed under — its own, or the temporary ID it had when placed — in
    /// compact form, the order bytes it was placed at, and whether that ID is its current one; nil when the
    /// object is not among the results.
    func placement(of object: ManagedObject) -> (placed: ResultID, order: [UInt8], underCurrentID: Bool)? {
        if let placed = namespaces.existingResultID(for: object.objectID), let order = orderBytesByID[placed] {
            return (placed, order, true)
        }
        guard let temporary = temporaryPlacements[ObjectIdentifier(object)]?.id,
            let placed = namespaces.existingResultID(for: temporary), let order = orderBytesByID[placed]
        else { return nil }
        return (placed, order, false)
    }

    func globalIndex(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, indexPath.section >= 0, indexPath.section < runs.count,
            indexPath.row >= 0, indexPath.row < runs.counts[indexPath.section]
        else { return nil }
        return runs.start(of: indexPath.section) + indexPath.row
    }

    func indexPath(forGlobalIndex offset: Int) -> IndexPath {
        let (section, row) = runs.locate(offset)
        return IndexPath(row: row, section: section)
    }

    func rowPath(forGlobalIndex offset: Int) -> RowPath {
        let (section, row) = runs.locate(offset)
        return RowPath(section: section, row: row)
    }
}

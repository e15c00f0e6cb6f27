import Foundation
import ObjectGraph

extension PeopleListViewController {
    /// Shows only the people `filter` matches, sorted and sectioned by `mode`, fetching them on another
    /// thread (``AnyFetchedResultsController/performFetchInBackground(completion:)``): the list keeps showing,
    /// and following, its current people until the new ones are read, then reloads. For long lists, where a
    /// fetch takes seconds.
    ///
    /// A later call, or ``apply(_:)-(PeopleFilter)``, replaces one still running. `completion` runs on the main
    /// queue with nil once the list shows the new people, or with the error that left the list as it was (a
    /// predicate naming an unknown key, say); a replaced fetch calls nothing.
    public func applyInBackground(
        _ filter: PeopleFilter, mode: PeopleSectionMode? = nil,
        completion: @escaping @MainActor (ObjectGraphError?) -> Void
    ) {
        let mode = mode ?? backgroundTarget?.mode ?? sectionMode
        let selected = selectedPerson
        refetchCount += 1
        let controller: FetchedResultsController<Person>
        if reusesController(for: filter, mode: mode) {
            pendingController = nil
            controller = resultsController
            controller.fetchRequest.predicate = filter.predicate
        } else {
            controller = makeController(filter: filter, mode: mode)
            pendingController = controller
        }
        backgroundTarget = (filter, mode)
        let generation = refetchCount
        let narrowing = controller === resultsController && mode == sectionMode && narrowsResults(to: filter)
        controller.performFetchInBackground(narrowingCurrentResults: narrowing) { [weak self] result in
            MainActor.assumeIsolated {
                guard let self else { return }
                if case .failure(.fetchCancelled) = result { return }
                let isLatest = generation == self.refetchCount
                if isLatest { self.backgroundTarget = nil }
                switch result {
                case .success where controller === self.resultsController:
                    // (Even an outdated fetch of the shown controller replaced its results: the table follows.) The
                    // update time shown is the main queue's part: the reload, not the read.
                    self.showFetchedResults(filter: filter, selecting: selected, started: self.timeSource.now)
                    if isLatest { completion(nil) }
                case .success where controller === self.pendingController:
                    self.pendingController = nil
                    self.sectionMode = mode
                    controller.delegate = self
                    self.resultsController.delegate = nil
                    self.resultsController = controller
                    self.showFetchedResults(filter: filter, selecting: selected, started: self.timeSource.now)
                    completion(nil)
                case .success:
                    return
                case .failure(let error):
                    if controller === self.resultsController {
                        controller.fetchRequest.predicate = self.filter.predicate
                    } else if controller === self.pendingController {
                        self.pendingController = nil
                    }
                    if isLatest { completion(error) }
                }
            }
        }
    }

    /// Whether the list fetches `filter` by narrowing the people it shows (see
    /// ``AnyFetchedResultsController/performFetchInBackground(narrowingCurrentResults:completion:)``) rather than
    /// reading the store again: the filter finds only people the shown one finds (``PeopleFilter/narrows(_:)``),
    /// the store's text search index cannot answer it (one or two letters, or no index: the store would test
    /// every row), and the list shows at most a third of the people in the store. Testing a shown person by key
    /// costs about two and a half times what the scan pays per row (`Benchmarks/README.md`, workload 7); a
    /// filter the index answers is cheaper fetched in full whatever the list shows.
    public func narrowsResults(to filter: PeopleFilter) -> Bool {
        guard filter.narrows(self.filter), let model = context.persistentStoreCoordinator?.managedObjectModel,
            !filter.usesTextIndex(in: model)
        else { return false }
        return numberOfPeople * 3 <= peopleInStore()
    }

    /// How many people the store holds: the list's count when it is not filtered, else the count it had when it
    /// last showed everyone, or else asked of the store (a count, which SQLite answers from an index) and
    /// remembered. (A rule of thumb for narrowing: people imported meanwhile may make it a little stale.)
    func peopleInStore() -> Int {
        if filter.predicate == nil, !isFetchingInBackground { return numberOfPeople }
        if let known = knownPeopleInStore { return known }
        let counted = (try? context.count(for: FetchRequest<Person>(entityName: PeopleModel.entityName))) ?? 0
        knownPeopleInStore = counted
        return counted
    }

    /// Whether the list is being fetched on another thread for a new filter or section mode.
    public var isFetchingInBackground: Bool { backgroundTarget != nil }

    /// Whether the list's first people are still being read (``startInBackground(completion:)``).
    public var isLoading: Bool { isFetchingInBackground && resultsController.sections == nil }

    /// Reads the people on another thread and shows them when they are read: for a long list, so that the
    /// window is usable (help, quitting, typing a filter) at once. `completion` runs on the main queue with
    /// nil, or with the error that left the list empty.
    public func startInBackground(completion: @escaping @MainActor (ObjectGraphError?) -> Void) {
        resultsController.delegate = self
        tableView.dataSource = self
        guard !isFetchingInBackground else { return }
        applyInBackground(filter, mode: sectionMode, completion: completion)
    }
}

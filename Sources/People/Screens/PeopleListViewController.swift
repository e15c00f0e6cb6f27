import Foundation
import ObjectGraph
import SectionedChanges
import TerminalTableView

/// The person list: a fetched-results controller's delegate and a table view's data source, the seeds'
/// `UITableViewController` pattern — every batch of changes the controller reports arrives as one
/// `SectionedChangeset`, which the table applies as it is.
@MainActor
public final class PeopleListViewController {
    /// The table the list is drawn in.
    public let tableView: TableView
    /// The controller that keeps the list's people up to date. Changing the filter or the section
    /// mode replaces it.
    public internal(set) var resultsController: FetchedResultsController<Person>
    /// The filter the list shows (``PeopleFilter/none`` for everyone).
    public private(set) var filter = PeopleFilter.none
    /// How many people the store held when the list last showed everyone, or when ``peopleInStore()`` last counted
    /// them.
    var knownPeopleInStore: Int?
    /// How the list is sorted and sectioned.
    public internal(set) var sectionMode = PeopleSectionMode.lastNameInitial
    /// Called after every change batch has been applied to the table (the app redraws then).
    public var onChange: (() -> Void)?
    /// How long the last change batch took to apply, for the status line.
    public private(set) var lastUpdateDuration: Duration = .zero
    /// How many times the list was fetched again for a new filter or section mode.
    var refetchCount = 0
    /// Why the list could not be read again after its controller dropped its results (see
    /// ``controllerDidInvalidateContent(_:)``); nil when it was.
    public internal(set) var lastReloadError: ObjectGraphError?
    /// The filter and mode a background fetch is reading the list for; nil when none runs.
    public internal(set) var backgroundTarget: (filter: PeopleFilter, mode: PeopleSectionMode)?
    /// The controller for a new section mode while its background fetch runs (it replaces
    /// ``resultsController`` when the fetch is done).
    var pendingController: FetchedResultsController<Person>?

    let timeSource: any TimeSource
    let context: ManagedObjectContext
    /// Where the list keeps its controllers' section caches; nil for none.
    let sectionCacheDirectory: URL?

    /// Creates the list on `context` (a main-queue context). With `sectionCacheDirectory`, the unfiltered list
    /// of each section mode keeps a section cache there (see ``AnyFetchedResultsController/cacheName``), so a
    /// launch on an unchanged store shows a long list at once instead of reading it.
    public init(
        context: ManagedObjectContext, timeSource: any TimeSource, flashDuration: Duration = .seconds(1),
        sectionCacheDirectory: URL? = nil
    ) {
        self.timeSource = timeSource
        self.context = context
        self.sectionCacheDirectory = sectionCacheDirectory
        var configuration = TableView.Configuration()
        configuration.flashDuration = flashDuration
        tableView = TableView(
            configuration: configuration,
            columns: [
                TableColumn("Name", width: .flexible(minimum: 12, weight: 3)),
                TableColumn("Email", width: .flexible(minimum: 10, weight: 3)),
                TableColumn("City", width: .flexible(minimum: 6, weight: 2)),
                TableColumn("Age", width: .fixed(3), alignment: .trailing),
            ],
            timeSource: timeSource)
        resultsController = Self.makeController(filter: .none, mode: .lastNameInitial, context: context,
            sectionCacheDirectory: sectionCacheDirectory)
    }

    /// Fetches the people and shows them.
    public func start() throws(ObjectGraphError) {
        resultsController.delegate = self
        try resultsController.performFetch()
        tableView.dataSource = self
        if tableView.indexPathForSelectedRow == nil, tableView.numberOfRows > 0 {
            _ = tableView.selectRow(at: IndexPath(row: 0, section: 0))
        }
    }

    /// Shows only the people `filter` matches: a new request for the results controller, a fetch, and a
    /// reload of the table. The cursor stays on the same person when they still match.
    ///
    /// - Throws: the fetch's error (a predicate naming an unknown key, say); the list then stays as it
    ///   was.
    public func apply(_ filter: PeopleFilter) throws(ObjectGraphError) {
        try refetch(filter: filter, mode: sectionMode)
    }

    /// Sorts and sections the list by `mode`, keeping the filter and the person under the cursor.
    public func apply(_ mode: PeopleSectionMode) throws(ObjectGraphError) {
        try refetch(filter: filter, mode: mode)
    }

    private func refetch(filter: PeopleFilter, mode: PeopleSectionMode) throws(ObjectGraphError) {
        let started = timeSource.now
        refetchCount += 1
        let selected = selectedPerson
        // (Fetching now cancels a background fetch of the same controller; one of a new one is dropped.)
        pendingController = nil
        backgroundTarget = nil
        if reusesController(for: filter, mode: mode) {
            // Same sections: re-create the request of the controller in place.
            let previous = resultsController.fetchRequest
            resultsController.fetchRequest.predicate = filter.predicate
            do {
                try resultsController.performFetch()
            } catch {
                resultsController.fetchRequest = previous
                throw error
            }
        } else {
            let controller = makeController(filter: filter, mode: mode)
            let previousMode = sectionMode
            sectionMode = mode  // index titles follow the new mode from the first fetch on
            controller.delegate = self
            do {
                try controller.performFetch()
            } catch {
                controller.delegate = nil
                sectionMode = previousMode
                throw error
            }
            resultsController.delegate = nil
            resultsController = controller
        }
        showFetchedResults(filter: filter, selecting: selected, started: started)
    }

    /// A controller for the list sorted and sectioned by `mode`, showing the people `filter` matches.
    func makeController(filter: PeopleFilter, mode: PeopleSectionMode) -> FetchedResultsController<Person> {
        Self.makeController(filter: filter, mode: mode, context: context, sectionCacheDirectory: sectionCacheDirectory)
    }

    private static func makeController(
        filter: PeopleFilter, mode: PeopleSectionMode, context: ManagedObjectContext, sectionCacheDirectory: URL?
    ) -> FetchedResultsController<Person> {
        var request = FetchRequest<Person>(entityName: PeopleModel.entityName, sortCriteria: mode.sortCriteria)
        request.predicate = filter.predicate
        request.fetchBatchSize = PeopleModel.listBatchSize
        let controller = FetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNaming: mode.sectionNaming,
            cacheName: sectionCacheName(filter: filter, mode: mode, context: context,
                directory: sectionCacheDirectory))
        if let sectionCacheDirectory { controller.cacheDirectory = sectionCacheDirectory }
        return controller
    }

    /// The section cache of the list sorted by `mode` and filtered by `filter`: only the unfiltered lists are
    /// cached (one cache per store and mode), since a cache is rewritten whenever its request changes.
    private static func sectionCacheName(
        filter: PeopleFilter, mode: PeopleSectionMode, context: ManagedObjectContext, directory: URL?
    ) -> String? {
        guard directory != nil, filter.predicate == nil,
            let store = context.persistentStoreCoordinator?.persistentStores.first?.url
        else { return nil }
        return "list-\(mode.rawValue)-" + store.standardizedFileURL.path
    }

    /// Brings the section cache of the list shown up to date after changes since it was read or written, so
    /// that the next launch shows the list at once. Call it when every save has reached the store and been
    /// merged into the list's context; nothing happens for a filtered list, without a cache directory, or
    /// while the context has unsaved changes.
    public func writeSectionCache() {
        resultsController.writeCache()
    }

    /// Whether the shown controller can be fetched again for `filter` and `mode` (a new request in place):
    /// the same sections and the same section cache, if any.
    func reusesController(for filter: PeopleFilter, mode: PeopleSectionMode) -> Bool {
        mode == sectionMode
            && resultsController.cacheName
                == Self.sectionCacheName(filter: filter, mode: mode, context: context, directory: sectionCacheDirectory)
    }

    /// Reloads the table from the controller's new results and puts the cursor back on `selected` when it is
    /// still on the list.
    func showFetchedResults(filter: PeopleFilter, selecting selected: Person?, started: ContinuousClock.Instant) {
        self.filter = filter
        // (Everyone shown: the store's count for later filters, with no query then.)
        if filter.predicate == nil { knownPeopleInStore = resultsController.numberOfFetchedObjects }
        tableView.reloadData()
        if let selected, let indexPath = resultsController.indexPath(forObject: selected) {
            tableView.selectRow(at: indexPath, scrollPosition: .middle)
        } else if tableView.numberOfRows > 0 {
            tableView.selectRow(at: IndexPath(row: 0, section: 0), scrollPosition: .top)
        }
        lastUpdateDuration = timeSource.now - started
        onChange?()
    }

    /// How many people the list shows.
    public var numberOfPeople: Int { resultsController.numberOfFetchedObjects }
    /// How many sections the list shows.
    public var numberOfSections: Int { resultsController.numberOfSections }

    /// The person under the cursor.
    public var selectedPerson: Person? {
        guard let indexPath = tableView.indexPathForSelectedRow,
            indexPath.section < resultsController.numberOfSections,
            indexPath.row < resultsController.numberOfObjects(inSection: indexPath.section)
        else { return nil }
        return resultsController.object(at: indexPath)
    }
}

// MARK: - Fetched-results controller delegate: each batch into the table as one changeset.

extension PeopleListViewController: FetchedResultsControllerChangesetDelegate {
    /// The controller's batch is the table's batch: applied as it comes, with nothing re-assembled.
    public nonisolated func controller(
        _ controller: AnyFetchedResultsController, didChangeContentWith changeset: SectionedChangeset
    ) {
        MainActor.assumeIsolated {
            let started = timeSource.now
            tableView.applyChanges(changeset)
            if tableView.indexPathForSelectedRow == nil, tableView.numberOfRows > 0 {
                _ = tableView.selectRow(at: IndexPath(row: 0, section: 0))
            }
            lastUpdateDuration = timeSource.now - started
            onChange?()
        }
    }

    /// The controller dropped its results because any person may have changed (another program restored a
    /// backup over the store or migrated it): the list is fetched again and reloaded. If that fetch fails (a store
    /// migrated to a model this program does not know), the list stays empty and ``lastReloadError`` says why.
    public nonisolated func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController) {
        let invalidated = ObjectIdentifier(controller)
        MainActor.assumeIsolated {
            guard invalidated == ObjectIdentifier(resultsController) else { return }
            do throws(ObjectGraphError) {
                try refetch(filter: filter, mode: sectionMode)
                lastReloadError = nil
            } catch {
                lastReloadError = error
                tableView.reloadData()
                onChange?()
            }
        }
    }

    /// The index titles of the current section mode (`…` for other scripts, `30` for `30–39`).
    public nonisolated func controller(
        _ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        MainActor.assumeIsolated { sectionMode.indexTitle(forSectionName: sectionName) }
    }
}

// MARK: - Table data source

extension PeopleListViewController: TableViewDataSource {
    public func numberOfSections(in tableView: TableView) -> Int {
        resultsController.numberOfSections
    }

    public func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        resultsController.numberOfObjects(inSection: section)
    }

    public func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let person = resultsController.object(at: indexPath)
        return TableViewCell(columns: [person.displayName, person.email, person.city, String(person.age)])
    }

    public func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        resultsController.sectionName(at: section)
    }

    public func tableView(_ tableView: TableView, detailForHeaderInSection section: Int) -> String? {
        NumberText.grouped(resultsController.numberOfObjects(inSection: section))
    }

    public func sectionIndexTitles(for tableView: TableView) -> [String]? {
        resultsController.sectionIndexTitles
    }

    public func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        resultsController.section(forSectionIndexTitle: title, at: index)
    }
}

/// Number formatting for the status line, independent of the locale (Foundation's formatters on Linux
/// depend on ICU data and the environment).
public enum NumberText {
    /// `12345` → `"12,345"`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }
}

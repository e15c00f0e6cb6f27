import Foundation
import ObjectGraph
import TerminalTableView

/// The `people` browser, independent of any real terminal: it takes events, keeps the list and the
/// imports going, and draws frames into whatever ``TerminalScreen`` it is given (ncurses in the app, an
/// in-memory screen in tests).
///
/// The app is a small state machine (``Mode``): browsing the list, editing the filter, waiting for a
/// section letter after `g`, a prompt, the detail view, the form, or the help. Every key goes to the
/// current mode; every frame is drawn from the state, never patched.
@MainActor
public final class PeopleApp {
    /// What the app was started with.
    public struct Options: Sendable {
        /// People to import in the background as soon as the list is on screen.
        public var generate: Int
        /// People per saved batch of an import.
        public var batchSize: Int
        /// People the `i` key imports.
        public var importOnKey: Int
        /// Seeds the generated people, so runs are reproducible.
        public var seed: UInt64
        /// How long changed rows stay highlighted.
        public var flashDuration: Duration
        /// From how many people on the list the filter waits for a pause in typing (``filterTypingPause``)
        /// before it fetches, rather than fetching at every key, and fetches on another thread, the list
        /// showing its people until the new ones are read. It does both after a filter fetch that took longer
        /// than a tenth of a second, too. Changing the sort of such a list also fetches on another thread. Words
        /// the store's text search index answers (three characters or more) fetch at every key without waiting.
        public var filterWaitsFromPeople: Int
        /// Where the list keeps its section caches, so that a launch on an unchanged store shows a long list at
        /// once; nil for none (see
        /// ``PeopleListViewController/init(context:timeSource:flashDuration:sectionCacheDirectory:)``).
        public var sectionCacheDirectory: URL?

        /// How long typing must pause before a slow filter fetches.
        public static let filterTypingPause = Duration.milliseconds(200)

        /// Creates options; by default nothing is imported at launch, batches hold 500 people and nothing is
        /// cached.
        public init(
            generate: Int = 0, batchSize: Int = 500, importOnKey: Int = 10_000, seed: UInt64 = 1,
            flashDuration: Duration = .seconds(1), filterWaitsFromPeople: Int = 50_000,
            sectionCacheDirectory: URL? = nil
        ) {
            self.sectionCacheDirectory = sectionCacheDirectory
            self.generate = generate
            self.batchSize = batchSize
            self.importOnKey = importOnKey
            self.seed = seed
            self.flashDuration = flashDuration
            self.filterWaitsFromPeople = filterWaitsFromPeople
        }
    }

    /// What the keys currently do.
    public enum Mode {
        /// Moving through the list.
        case browsing
        /// Typing in the filter field (the list follows as you type).
        case filtering
        /// After `g`: the next key names a section's index title.
        case jumping
        /// Asking for the path of a file to import.
        case importPrompt(LineEditor)
        /// Asking whether to delete a person.
        case confirmingDelete(Person)
        /// Asking whether to delete everyone the filter shows (`D`), `count` people, as one batch delete.
        case confirmingBatchDelete(PeopleFilter, count: Int)
        /// Showing one person.
        case detail(Person)
        /// The new-person or edit form; `person` is nil for a new person.
        case form(PersonForm, person: Person?)
        /// The key list.
        case help
    }

    /// The list on screen.
    public let list: PeopleListViewController
    /// Whether the user asked to quit.
    public private(set) var shouldQuit = false
    /// What the keys currently do.
    public internal(set) var mode = Mode.browsing
    /// Every import started, oldest first.
    public internal(set) var importers: [PersonImporter] = []
    /// The most recently started import.
    public var importer: PersonImporter? { importers.last }
    /// The imports of the current burst, as the status line shows them.
    public internal(set) var importActivity = ImportActivity()

    let stack: PeopleStack
    let screen: any TerminalScreen
    let timeSource: any TimeSource
    let options: Options
    /// The filter field.
    var filterEditor = LineEditor()
    /// Why the filter text is not a valid predicate; the list keeps its previous filter meanwhile.
    var filterError: FetchPredicateError?
    /// Whether ``processInput()`` is handling a batch of events: filter text typed then waits for the end of
    /// the batch (``deferredFilterText``), so that keys typed while a large list was being filtered cost one
    /// fetch together, not one each.
    private var isHandlingInputBatch = false
    /// Filter text typed and not yet applied: until the end of the current batch of events, or — for a slow
    /// filter — until typing pauses.
    var deferredFilterText: String?
    /// When deferred filter text is applied if no key comes first (nil: at the end of the batch).
    var deferredFilterDue: ContinuousClock.Instant?
    /// How long the last filter fetch took.
    var lastFilterDuration: Duration = .zero
    /// A one-line note for the bottom line (a save, a deletion, an error), until the next key.
    var message: (text: String, isError: Bool)?
    /// A save that failed after its commit (see ``PeopleStack/setDeferredSaveFailureHandler(_:)``), and when
    /// it was reported: shown on the bottom line before anything else, and kept at least
    /// ``saveFailureMinimumDisplay`` so that keys typed meanwhile cannot wipe it unseen.
    var saveFailure: (text: String, at: ContinuousClock.Instant, count: Int)?
    /// How long a failed save stays on the bottom line at least.
    static let saveFailureMinimumDisplay = Duration.seconds(3)
    /// The serial number the next generated person's email gets.
    var nextSerial = 1
    /// Index of each running importer in ``importActivity``'s jobs.
    var activityIndexes: [ObjectIdentifier: Int] = [:]
    var needsDisplay = true
    /// Whether the imports have finished but the view context still has their saves queued for merging,
    /// so the list has not shown all of them yet (the status line says so).
    var listIsCatchingUp = false
    /// The person each undo step (and redo step) of the view context's undo manager is about, in step with
    /// its stacks, so that `u` and `U` can show the person they changed.
    var undoSubjects: [Person] = []
    var redoSubjects: [Person] = []
    var lastRenderAt: ContinuousClock.Instant?
    var lastFrameDuration: Duration = .zero
    /// Batch deletes (`D`) started and not yet finished.
    public internal(set) var batchDeletesRunning = 0
    /// What other programs changed since the bottom line last said so (see `PeopleApp+RemoteChanges.swift`).
    var remoteTally = RemoteChangeTally()
    /// The subscription to the store's commit events.
    var remoteChangeToken: ObservationToken?

    /// Creates the app on an opened stack.
    public init(stack: PeopleStack, screen: any TerminalScreen, timeSource: any TimeSource, options: Options) {
        self.stack = stack
        self.screen = screen
        self.timeSource = timeSource
        self.options = options
        list = PeopleListViewController(context: stack.viewContext, timeSource: timeSource,
            flashDuration: options.flashDuration, sectionCacheDirectory: options.sectionCacheDirectory)
        list.tableView.configuration.usesColors = screen.supportsColors
        list.onChange = { [weak self] in self?.needsDisplay = true }
        Self.installUndoManager(on: stack.viewContext)
        stack.setDeferredSaveFailureHandler { [weak self] failure in self?.report(failure) }
        followRemoteChanges()
    }

    /// Shows the list and starts the launch import, if one was asked for.
    public func start() throws(ObjectGraphError) {
        let stored = try stack.viewContext.count(for: PeopleModel.listRequest())
        nextSerial = stored + 1
        if stored >= options.filterWaitsFromPeople {
            // A long list is read on another thread: the window works (help, quitting, a filter) meanwhile.
            list.startInBackground { [weak self] error in
                guard let self else { return }
                if let error { self.message = ("Cannot read the people: \(error)", true) }
                self.needsDisplay = true
            }
        } else {
            try list.start()
        }
        render()
        if options.generate > 0 { startImport(count: options.generate) }
    }

    // MARK: - Events

    /// Reads and handles every pending terminal event, then redraws if anything changed.
    public func processInput() {
        isHandlingInputBatch = true
        for event in screen.readEvents() {
            handle(event)
            if shouldQuit { break }
        }
        isHandlingInputBatch = false
        if shouldQuit { return }
        if let text = deferredFilterText, filterWaitsForPause(text) {
            // The typed text shows at once; the list follows when typing pauses (see `tick()`).
            deferredFilterDue = timeSource.now + Options.filterTypingPause
        } else {
            applyDeferredFilter()
        }
        if needsDisplay { render() }
    }

    /// Handles one event.
    public func handle(_ event: TerminalEvent) {
        switch event {
        case .resize:
            break
        case .mouse(let mouse):
            if case .browsing = mode { _ = list.tableView.handle(mouse) }
        case .key(let key):
            message = nil
            if let failure = saveFailure, timeSource.now - failure.at >= Self.saveFailureMinimumDisplay {
                saveFailure = nil
            }
            handle(key)
        }
        needsDisplay = true
    }

    private func handle(_ key: Key) {
        switch mode {
        case .browsing: handleBrowsing(key)
        case .filtering: handleFiltering(key)
        case .jumping:
            mode = .browsing
            if case .character(let character) = key, !list.tableView.scrollToSection(forIndexTitle: String(character)) {
                message = ("No section \(character).", true)
            }
        case .importPrompt(var editor):
            switch key {
            case .escape: mode = .browsing
            case .enter:
                mode = .browsing
                startImport(file: editor.text)
            default:
                editor.handle(key)
                mode = .importPrompt(editor)
            }
        case .confirmingDelete(let person):
            mode = .browsing
            if key == .character("y") || key == .character("Y") { delete(person) }
        case .confirmingBatchDelete(let filter, _):
            mode = .browsing
            if key == .character("y") || key == .character("Y") { deleteFiltered(filter) }
        case .detail(let person):
            switch key {
            case .escape, .character("q"), .enter: mode = .browsing
            case .character("e") where !person.isDeleted: mode = .form(PersonForm(editing: person), person: person)
            case .character("d") where !person.isDeleted: mode = .confirmingDelete(person)
            default: break
            }
        case .form(var form, let person):
            switch form.handle(key) {
            case .none: mode = .form(form, person: person)
            case .cancel: mode = person.map { .detail($0) } ?? .browsing
            case .submit: submit(form, editing: person)
            }
        case .help:
            mode = .browsing
        }
    }

    private func handleBrowsing(_ key: Key) {
        let table = list.tableView
        switch key {
        case .character("q"): shouldQuit = true
        case .character("j"): _ = table.handle(.down)
        case .character("k"): _ = table.handle(.up)
        case .character("g"): mode = .jumping
        case .character("/"):
            filterEditor.setText(list.filter.text)
            mode = .filtering
        case .escape:
            if !list.filter.text.isEmpty || filterError != nil { applyFilter(text: "") }
        case .character("s"): showNextSectionMode()
        case .character("i"): startImport(count: options.importOnKey)
        case .character("I"): mode = .importPrompt(LineEditor())
        case .character("n"): mode = .form(PersonForm(), person: nil)
        case .character("e"):
            if let person = list.selectedPerson { mode = .form(PersonForm(editing: person), person: person) }
        case .character("d"):
            if let person = list.selectedPerson { mode = .confirmingDelete(person) }
        case .character("D"): askToDeleteFiltered()
        case .character("u"): undoLastEdit()
        case .character("U"): redoLastEdit()
        case .character("?"): mode = .help
        case .enter:
            if let person = list.selectedPerson { mode = .detail(person) }
        default:
            _ = table.handle(key)
        }
    }

    private func handleFiltering(_ key: Key) {
        switch key {
        case .enter:
            applyDeferredFilter()
            mode = .browsing
        case .escape:
            deferredFilterText = nil
            deferredFilterDue = nil
            applyFilter(text: "")
            mode = .browsing
        case .up, .down, .pageUp, .pageDown:
            applyDeferredFilter()
            _ = list.tableView.handle(key)
        default:
            let before = filterEditor.text
            filterEditor.handle(key)
            guard filterEditor.text != before else { return }
            if isHandlingInputBatch {
                deferredFilterText = filterEditor.text
            } else {
                applyFilter(text: filterEditor.text)
            }
        }
    }

    /// Shows a save that failed after its commit (repeats of the same failure are counted).
    func report(_ failure: DeferredSaveFailure) {
        let text = failure.description
        let count = saveFailure.map { $0.text == text ? $0.count + 1 : 1 } ?? 1
        saveFailure = (text, timeSource.now, count)
        needsDisplay = true
    }

    // MARK: - Time

    /// Called by the run loop on every timer tick: follows the imports, and redraws when something
    /// changed, an import is running (its rate and ETA move), or a highlight expired.
    public func tick() {
        let now = timeSource.now
        if let due = deferredFilterDue, due <= now {
            applyDeferredFilter()
            needsDisplay = true
        }
        for importer in importers {
            guard let index = activityIndexes[ObjectIdentifier(importer)] else { continue }
            if importActivity.update(index, progress: importer.progress, at: now) { needsDisplay = true }
        }
        let catchingUp = !importActivity.jobs.isEmpty && !importActivity.isRunning && stack.viewContext.hasQueuedMerges
        if catchingUp != listIsCatchingUp {
            listIsCatchingUp = catchingUp
            needsDisplay = true
        }
        if importActivity.isRunning, let last = lastRenderAt, now - last >= .milliseconds(500) { needsDisplay = true }
        if let deadline = list.tableView.nextRedrawDeadline, deadline <= now { needsDisplay = true }
        if needsDisplay { render() }
    }

    /// Stops running imports after their current batch, then waits — without blocking the main queue,
    /// which the imports' pushes may need — until they have stopped and everything they and the user
    /// committed is on disk, and writes the list's section cache if it changed. `completion` runs on the main
    /// queue with what failed on the way, if anything.
    public func shutdown(completion: @escaping @MainActor (DeferredSaveFailure?) -> Void) {
        if importActivity.isRunning {
            message = ("Stopping imports and saving…", false)
            render()
        }
        for importer in importers { importer.cancel() }
        let group = DispatchGroup()
        for importer in importers {
            group.enter()
            importer.whenStopped { group.leave() }
        }
        let stack = stack
        group.notify(queue: .main) {
            MainActor.assumeIsolated {
                stack.flush { failure in
                    guard failure == nil else { return completion(failure) }
                    self.writeSectionCacheWhenCaughtUp(until: .now + Self.sectionCacheWaitAtQuit) { completion(nil) }
                }
            }
        }
    }

    /// How long quitting waits for the list to merge what the imports saved, so that its section cache can be
    /// written.
    static let sectionCacheWaitAtQuit = Duration.seconds(2)

    /// Once the view context has merged every save (the list is then the store's), brings the list's section
    /// cache up to date, so that the next launch shows it at once; then calls `then`. Gives up on the cache at
    /// `deadline` (the next launch reads the store).
    private func writeSectionCacheWhenCaughtUp(
        until deadline: ContinuousClock.Instant, then: @escaping @MainActor () -> Void
    ) {
        if stack.viewContext.hasQueuedMerges {
            guard ContinuousClock.now < deadline else { return then() }
            // (Each turn of the main queue merges a part of what is queued.)
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self.writeSectionCacheWhenCaughtUp(until: deadline, then: then) }
            }
            return
        }
        if list.numberOfPeople >= options.filterWaitsFromPeople {
            // (About a second for a million people, when they changed.)
            message = ("Saving the list for the next launch…", false)
            render()
        }
        list.writeSectionCache()
        then()
    }

    /// ``shutdown(completion:)`` for async callers.
    public func shutdown() async -> DeferredSaveFailure? {
        await withCheckedContinuation { continuation in
            shutdown { failure in continuation.resume(returning: failure) }
        }
    }
}

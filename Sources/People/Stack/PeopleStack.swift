import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PeopleResources

/// The browser's Core Data stack: a coordinator on the store file, a main-queue view context that the user
/// interface reads, and private-queue worker contexts for imports, wired as one of three ``Kind``s.
///
/// Everything that writes goes through ``commit(_:)``, which saves a context and carries its changes on
/// towards the store as the stack requires (see `PeopleStack+Commit.swift`). The main thread never waits for
/// a worker: workers wait for the main queue when they push into the view context, never the other way round.
public final class PeopleStack: Sendable {
    /// How the contexts are wired.
    public let kind: Kind
    /// The coordinator with the SQLite store.
    public let coordinator: PersistentStoreCoordinator
    /// The context the user interface reads, on the main queue.
    public let viewContext: ManagedObjectContext
    /// The private-queue context that saves to disk in a ``Kind/writerMainWorker`` stack (the view context's
    /// parent); nil in the other stacks.
    public let writerContext: ManagedObjectContext?
    /// The store file, or the PostgreSQL database's connection URI.
    public let storeURL: URL

    /// How messages name the store: its path, or the connection URI without its password.
    public var storeDisplayName: String { Self.displayName(of: storeURL) }

    /// How messages name a store: its path, or the connection URI without its password.
    public static func displayName(of url: URL) -> String { url.isFileURL ? url.path : StoreURL.redacted(url) }

    /// The URL of a `--store` argument: a `postgresql://` (or `postgres://`) connection URI as given, anything
    /// else a file path.
    public static func storeURL(for argument: String) -> URL {
        if PostgresStore.isConnectionURI(argument), let url = URL(string: argument) { return url }
        return URL(fileURLWithPath: argument)
    }

    /// Whether `argument` starts like a PostgreSQL connection URI (`postgresql://`, `postgres://`) but is not a valid
    /// URI (a bad host or port, say): ``storeURL(for:)`` would take it for a file name, so the command refuses it.
    public static func isMalformedConnectionURI(_ argument: String) -> Bool {
        PostgresStore.isConnectionURI(argument) && URL(string: argument) == nil
    }

    /// Carries saves down to disk after a commit, and reports what fails there.
    let pipeline: CommitPipeline

    /// Opens (creating if needed) the store at `storeURL` with the app's model.
    public convenience init(storeURL: URL, kind: Kind = .default) throws {
        try self.init(storeURL: storeURL, model: PeopleModel.loadModel(), kind: kind)
    }

    /// Opens (creating if needed) the store at `storeURL` with `model`.
    public convenience init(storeURL: URL, model: ManagedObjectModel, kind: Kind = .default) throws(ObjectGraphError) {
        try self.init(coordinator: Self.openCoordinator(storeURL: storeURL, model: model), storeURL: storeURL, kind: kind)
    }

    /// A coordinator with the store at `storeURL` added (created if needed, migrated if it was written with an
    /// older model version, its text index built if the model asks for a new one, people another program wrote
    /// given their sections: see ``SectionOrderRepair``): the slow part of opening,
    /// safe to run on any thread, and followed through the calling thread's current `Progress`, if any.
    public static func openCoordinator(storeURL: URL, model: ManagedObjectModel) throws(ObjectGraphError)
        -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        // A file is an SQLite store; a postgresql:// URL a database that other `people` share, live.
        let type: PersistentStoreType = storeURL.isFileURL ? .sqlite : .postgreSQL
        if type == .postgreSQL { PostgresStore.register() }
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: storeURL,
            options: Self.storeOptions)
        try SectionOrderRepair.run(coordinator)
        return coordinator
    }

    /// The stack over `coordinator`, whose store at `storeURL` is added (see ``openCoordinator(storeURL:model:)``).
    public init(coordinator: PersistentStoreCoordinator, storeURL: URL, kind: Kind = .default) {
        self.kind = kind
        self.storeURL = storeURL
        self.coordinator = coordinator
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "view"
        viewContext.transactionAuthor = Self.transactionAuthor
        switch kind {
        case .siblings, .nested:
            writerContext = nil
            viewContext.persistentStoreCoordinator = coordinator
            // Siblings: every worker save merges in. Nested: only saves of other contexts on the coordinator
            // (none in the app) would; the view context's own saves are never merged back.
            viewContext.automaticallyMergesChangesFromParent = true
        case .writerMainWorker:
            let writer = ManagedObjectContext(concurrencyType: .privateQueue)
            writer.name = "writer"
            writer.transactionAuthor = Self.transactionAuthor
            writer.persistentStoreCoordinator = coordinator
            // Other programs' commits are merged into the writer (automaticallyMergesRemoteChanges) and reach
            // the view context through it: a child follows the remote changes its parent merged.
            writerContext = writer
            viewContext.parent = writer
            // The writer's saves are the view context's own changes echoed back: nothing to merge.
            viewContext.automaticallyMergesChangesFromParent = false
        }
        pipeline = CommitPipeline(kind: kind, viewContext: viewContext, writer: writerContext)
    }

    /// How the app opens its store: with persistent history and the remote-change watcher, so that what other
    /// programs (another `people`, `objectgraph`, an importer) commit shows in the open list.
    public static var storeOptions: PersistentStoreOptions {
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        options.remoteChangeNotifications = true
        return options
    }

    /// The transaction author every save of the app records in the persistent history.
    public static let transactionAuthor = "people"

    /// A new private-queue context for background work (an import), part of the stack: on the coordinator
    /// in a ``Kind/siblings`` stack, a child of the view context in the others. Save it with ``commit(_:)``.
    public func newWorkerContext(name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = name
        context.transactionAuthor = Self.transactionAuthor
        switch kind {
        case .siblings: context.persistentStoreCoordinator = coordinator
        case .nested, .writerMainWorker: context.parent = viewContext
        }
        return context
    }

    /// A new private-queue context on the coordinator, outside the stack's chain: it reads what is on disk
    /// (for checks and counts). Changes saved through it bypass the view context in the nested stacks.
    public func newStoreContext(name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = name
        context.transactionAuthor = Self.transactionAuthor
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// How many people the store file holds (read on a store context; never waits for the main queue).
    public func storedPeopleCount() throws(ObjectGraphError) -> Int {
        let context = newStoreContext(name: "count")
        return try context.performAndWait {
            Result { () throws(ObjectGraphError) in try context.count(for: PeopleModel.listRequest()) }
        }.get()
    }

    /// The default store location: `$XDG_DATA_HOME/people/people.sqlite`, else
    /// `~/.local/share/people/people.sqlite`.
    public static func defaultStoreURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        userDirectory("XDG_DATA_HOME", else: ".local/share", environment: environment)
            .appendingPathComponent("people.sqlite")
    }

    /// Where `people browse` keeps the list's section caches: `$XDG_CACHE_HOME/people`, else `~/.cache/people`.
    public static func defaultSectionCacheDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        userDirectory("XDG_CACHE_HOME", else: ".cache", environment: environment)
    }

    /// The app's folder in the XDG base directory that `variable` names, else in `fallback` under the home
    /// folder.
    private static func userDirectory(_ variable: String, else fallback: String, environment: [String: String])
        -> URL
    {
        let base: URL
        if let path = environment[variable], !path.isEmpty {
            base = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            base = home.appendingPathComponent(fallback, isDirectory: true)
        }
        return base.appendingPathComponent("people", isDirectory: true)
    }

    /// Fills an empty store with the sample people shipped in `Resources/`, in the view context, and commits
    /// them; does nothing otherwise. Call it before the user interface records undo steps.
    ///
    /// - Returns: how many people were added.
    @MainActor
    @discardableResult
    public func seedIfEmpty() throws -> Int {
        let context = viewContext
        // (Whether there is anyone, without counting everyone.)
        var anyone = FetchRequest<Person>(entityName: PeopleModel.entityName)
        anyone.fetchLimit = 1
        guard try context.fetchObjectIDs(anyone).isEmpty else { return 0 }
        guard let url = PeopleResources.samplePeopleURL else { return 0 }
        let records = try PersonRecord.loadSamplePeople(from: url)
        let people = records.map { record in
            let person = Person(context: context)
            person.update(from: record)
            return person
        }
        do {
            try GeneratedAffiliations.attach(people, records: records, in: context)
            try commit(context)
        } catch {
            context.rollback()  // nothing else is in the view context yet
            throw error
        }
        return records.count
    }
}

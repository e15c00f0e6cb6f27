import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// The `--model M --store S` pair every command that opens a store takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The model file (.xcdatamodeld or .xcdatamodel).", valueName: "model"))
    var model: String

    @Option(name: .long, help: ArgumentHelp(
        "The store file (SQLite, or an atomic store), or a PostgreSQL database as postgresql://user@host:port/db "
            + "(password from PGPASSWORD or ~/.pgpass).", valueName: "store"))
    var store: String

    /// The store's URL: a file, or a PostgreSQL connection URI.
    var storeURL: URL { StoreOpener.url(for: store) }

    /// How messages name the store: the path, or the connection URI without its password.
    var displayName: String { PostgresStore.isConnectionURI(store) ? StoreURL.redacted(storeURL) : store }

    /// Refuses a `postgresql://` store that is not a valid URI, instead of taking it for a file name (which
    /// would print its password in the error, or create a file of that name).
    func validate() throws {
        try StoreOpener.checkConnectionURI(store, option: "--store")
    }

    /// Loads the model.
    func loadModel() throws(CommandFailure) -> ManagedObjectModel {
        try ModelFile.load(model)
    }

    /// Opens the store for `model` and returns a private-queue context on it.
    ///
    /// - Parameters:
    ///   - creating: whether a missing store file is created (import) or an error (query).
    ///   - writing: whether the command writes: the store then records persistent history, with the transaction
    ///     author `objectgraph`, so that programs watching the store (`people`) say who changed it.
    func openContext(model: ManagedObjectModel, creating: Bool, writing: Bool = false) throws(CommandFailure)
        -> ManagedObjectContext
    {
        try StoreOpener.openContext(model: model, storeURL: storeURL, creating: creating, writing: writing)
    }
}

/// Opening a store file for a model, with the tool's error messages.
enum StoreOpener {
    /// What an error about a store of another model version adds: `import` and `query` never migrate.
    static let migrateHint = "(objectgraph migrate --dry-run shows whether it can be migrated)"

    /// The author every change the tool makes records in the persistent history.
    static let transactionAuthor = "objectgraph"

    /// Adds the store at `storeURL` (SQLite or atomic, by its first bytes) to a new coordinator for `model` and returns a private-queue
    /// context attached to it.
    ///
    /// A store written with an earlier version of the model is refused, never migrated on the side: that is
    /// `objectgraph migrate`'s job.
    ///
    /// - Throws: ``CommandFailure`` when the file is missing (unless `creating`), is not a store, or was
    ///   written for another model.
    static func openContext(model: ManagedObjectModel, storeURL: URL, creating: Bool, writing: Bool = false)
        throws(CommandFailure) -> ManagedObjectContext
    {
        if !storeURL.isFileURL { return try openServerContext(model: model, storeURL: storeURL, creating: creating) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: storeURL.path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            throw CommandFailure("cannot open the store \(storeURL.path): it is a directory")
        }
        if !exists && !creating {
            throw CommandFailure("cannot open the store \(storeURL.path): no such file")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        do {
            var options = PersistentStoreOptions(migratesAutomatically: false)
            options.persistentHistoryTracking = writing
            try coordinator.addPersistentStore(ofType: StoreFileType.of(storeURL), configurationName: nil, at: storeURL,
                options: options)
        } catch {
            if error.isIncompatibleModel {
                throw CommandFailure("cannot open the store \(storeURL.path): \(error) \(migrateHint)")
            }
            throw CommandFailure("cannot open the store \(storeURL.path): \(error)")
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = "objectgraph"
        context.transactionAuthor = transactionAuthor
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

extension StoreOpener {
    /// The URL of a `--store` argument: a PostgreSQL connection URI as given, anything else a file path.
    static func url(for store: String) -> URL {
        if PostgresStore.isConnectionURI(store), let url = URL(string: store) { return url }
        return URL(fileURLWithPath: store)
    }

    /// Throws when `store` starts like a PostgreSQL connection URI but is not a valid URI. The message does not
    /// repeat the argument, which may hold a password.
    static func checkConnectionURI(_ store: String, option: String) throws(CommandFailure) {
        guard PostgresStore.isConnectionURI(store), URL(string: store) == nil else { return }
        throw CommandFailure("\(option) is not a valid postgresql:// URI (postgresql://user@host:port/database; "
            + "percent-encode special characters)")
    }

    /// Adds the PostgreSQL database at `storeURL` to a new coordinator for `model` and returns a private-queue
    /// context on it. A database without ObjectGraph's tables gets them when `creating` (import); otherwise it is
    /// refused, as a missing file is, so that reading a wrong database never turns it into a store (which a
    /// restore into it would then refuse). Errors name the database without its password.
    static func openServerContext(model: ManagedObjectModel, storeURL: URL, creating: Bool) throws(CommandFailure)
        -> ManagedObjectContext
    {
        PostgresStore.register()
        if !creating {
            do {
                _ = try PostgresStore.metadata(at: storeURL)
            } catch {
                throw CommandFailure("cannot open the store \(StoreURL.redacted(storeURL)): \(error)")
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: storeURL,
                options: PersistentStoreOptions(migratesAutomatically: false))
        } catch {
            throw CommandFailure("cannot open the store \(StoreURL.redacted(storeURL)): \(error)"
                + (error.isIncompatibleModel ? " " + migrateHint : ""))
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = "objectgraph"
        context.transactionAuthor = transactionAuthor
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

private extension ObjectGraphError {
    /// Whether the store was written for another model (version).
    var isIncompatibleModel: Bool {
        if case .incompatibleModel = self { return true }
        return false
    }
}

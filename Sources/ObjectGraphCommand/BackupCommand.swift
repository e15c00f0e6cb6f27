import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// `objectgraph backup`: copies a store with SQLite's online backup, after checking it against a model; or a
/// PostgreSQL store into an SQLite store file; or restores a store file into a PostgreSQL database.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store to a new file with SQLite's online backup (safely while it is in use), or "
            + "between a PostgreSQL database and a store file.",
        discussion: """
            The store is opened and checked against the model first, so a file that is not a store \
            (an empty file included), or a store written for another model, is refused. The copy is one consistent snapshot \
            of every committed transaction, including those still in the store's -wal file, taken while \
            other programs keep reading and writing the store; a transaction still open is not included. \
            The copy keeps the store's UUID and its support folder (.<name>_SUPPORT) and passes SQLite's \
            quick_check.

            PATH must not exist, unless --force is given and PATH is an ObjectGraph store (or an empty \
            file), which is then overwritten in place through SQLite, its old -wal and -shm included. A \
            file that is not a store is never overwritten.

            With --store postgresql://… the PostgreSQL store is backed up into the SQLite store file PATH: \
            every row, relationship and key of one consistent read of the server, under the store's UUID \
            (open the copy as any SQLite store). The database must hold ObjectGraph's tables written for \
            the model's version. With --force an existing store at PATH is replaced through a new file \
            beside it, so a failure leaves it as it was.

            With --to postgresql://… the store file is restored into that PostgreSQL database: every \
            row, relationship (with its order), key counter, external binary value and metadata key, \
            under the file's store UUID, in one server transaction. A database without ObjectGraph's \
            tables is filled; one that has them is refused, unless --force is given: then its contents \
            are replaced in that transaction (a failure leaves them as they were), and connected clients \
            read everything again. Passwords are never shown.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "The file to write the copy to, or a postgresql:// database to restore the store file into.", valueName: "path"))
    var destination: String

    @Flag(name: .long, help: "Overwrite PATH when it is an existing store (with --to postgresql://…, replace the database's store).")
    var force = false

    func run() throws {
        let model = try storeOptions.loadModel()
        if PostgresStore.isConnectionURI(destination) {
            guard !PostgresStore.isConnectionURI(storeOptions.store) else {
                throw CommandFailure("cannot copy a PostgreSQL store into another database; back it up into a "
                    + "store file first, then restore that file")
            }
            guard let databaseURL = URL(string: destination) else {
                throw CommandFailure("--to is not a valid postgresql:// URL")
            }
            print(try ServerRestore.run(model: model, storeURL: storeOptions.storeURL, databaseURL: databaseURL,
                force: force).rendered())
            return
        }
        if PostgresStore.isConnectionURI(storeOptions.store) {
            print(try ServerBackup.run(model: model, storeURL: storeOptions.storeURL,
                destinationURL: URL(fileURLWithPath: destination), force: force).rendered())
            return
        }
        let summary = try StoreBackup.run(model: model, storeURL: storeOptions.storeURL,
            destinationURL: URL(fileURLWithPath: destination), force: force)
        print(summary.rendered())
    }
}

/// What `backup` did.
struct BackupSummary {
    /// The store that was copied.
    var storePath: String
    /// The copy.
    var destinationPath: String
    /// The store's UUID, which the copy keeps.
    var storeUUID: String
    /// Whether an existing store at the destination was overwritten (`--force`).
    var replaced: Bool

    /// The summary as text.
    func rendered() -> String {
        "\(replaced ? "Replaced" : "Wrote") \(destinationPath) with a backup of \(storePath) (store UUID \(storeUUID))."
    }
}

/// Backing up a store file, with the tool's checks and error messages.
enum StoreBackup {
    /// Opens the store at `storeURL` for `model` (checking that it is a store written for the model)
    /// and copies it to `destinationURL` with the online backup.
    ///
    /// - Throws: ``CommandFailure`` when the store is missing, not a store or written for another model, when
    ///   the destination exists (without `force`, or when it is not a store), or when the copy fails.
    static func run(model: ManagedObjectModel, storeURL: URL, destinationURL: URL, force: Bool) throws(CommandFailure)
        -> BackupSummary
    {
        let source = storeURL.standardizedFileURL
        let destination = destinationURL.standardizedFileURL
        if source.resolvingSymlinksInPath().path == destination.resolvingSymlinksInPath().path {
            throw CommandFailure("cannot back up \(source.path) onto itself; choose another --to path")
        }
        let (coordinator, store) = try open(model: model, storeURL: source)
        let exists = try BackupCommand.checkDestination(destination, force: force)
        do throws(ObjectGraphError) {
            if exists {
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source)
            } else {
                try coordinator.backupPersistentStore(store, to: destination)
            }
        } catch {
            switch error {
            case .notAnObjectGraphStore(let path, let reason) where path.hasSuffix(destination.lastPathComponent):
                throw CommandFailure("refusing to overwrite \(destination.path), even with --force: it is not an "
                    + "ObjectGraph store (\(reason))")
            default:
                throw CommandFailure("cannot back up \(source.path) to \(destination.path): \(error)")
            }
        }
        return BackupSummary(storePath: source.path, destinationPath: destination.path, storeUUID: store.identifier,
            replaced: exists)
    }

    /// Opens the store at `storeURL` for `model` as the other commands do, after checking that it is an
    /// ObjectGraph store (so that, unlike `query`, an empty file is refused rather than made into a store).
    static func open(model: ManagedObjectModel, storeURL: URL) throws(CommandFailure)
        -> (PersistentStoreCoordinator, PersistentStore)
    {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: storeURL.path, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot open the store \(storeURL.path): no such file")
        }
        if isDirectory.boolValue {
            throw CommandFailure("cannot open the store \(storeURL.path): it is a directory")
        }
        do {
            _ = try StoreFileType.metadata(at: storeURL)
        } catch {
            throw CommandFailure("cannot open the store \(storeURL.path): \(error)")
        }
        let context = try StoreOpener.openContext(model: model, storeURL: storeURL, creating: false)
        guard let coordinator = context.persistentStoreCoordinator, let store = coordinator.persistentStores.first else {
            throw CommandFailure("cannot open the store \(storeURL.path): it was not added")
        }
        return (coordinator, store)
    }
}

extension BackupCommand {
    /// Whether a backup's `destination` exists, refusing one that does unless `force` (and always a directory).
    static func checkDestination(_ destination: URL, force: Bool) throws(CommandFailure) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory) else { return false }
        guard force else {
            throw CommandFailure("\(destination.path) already exists; pass --force to overwrite it with the backup")
        }
        if isDirectory.boolValue {
            throw CommandFailure("\(destination.path) is a directory; give the path of a store file to --to")
        }
        return true
    }
}

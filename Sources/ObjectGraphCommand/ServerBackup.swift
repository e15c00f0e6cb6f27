import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// Backing up a PostgreSQL store (`--store postgresql://…`) into an SQLite store file: the rows, relationships,
/// keys and versions of one consistent read of the server, under the store's UUID.
enum ServerBackup {
    /// Opens the database at `storeURL` for `model` (refusing a database without ObjectGraph's tables, or one
    /// written for another model version) and writes its contents to the SQLite file `destinationURL`; with `force`
    /// an existing store there is overwritten (through a new file beside it, so that a failure leaves it as it was).
    static func run(model: ManagedObjectModel, storeURL: URL, destinationURL: URL, force: Bool) throws(CommandFailure)
        -> BackupSummary
    {
        let name = StoreURL.redacted(storeURL)
        let destination = destinationURL.standardizedFileURL
        do {
            _ = try PostgresStore.metadata(at: storeURL)
        } catch {
            throw CommandFailure("cannot open the store \(name): \(error)")
        }
        let exists = try BackupCommand.checkDestination(destination, force: force)
        if exists {
            do {
                _ = try StoreFileType.metadata(at: destination)
            } catch {
                let empty = ((try? FileManager.default.attributesOfItem(atPath: destination.path))?[.size] as? Int) == 0
                if !empty {
                    throw CommandFailure("refusing to overwrite \(destination.path), even with --force: it is not an "
                        + "ObjectGraph store (\(error))")
                }
            }
        }
        let context = try StoreOpener.openServerContext(model: model, storeURL: storeURL, creating: false)
        guard let coordinator = context.persistentStoreCoordinator, let store = coordinator.persistentStores.first else {
            throw CommandFailure("cannot open the store \(name): it was not added")
        }
        let identifier = store.identifier
        let written = exists
            ? destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).backup-\(UUID().uuidString)")
            : destination
        do throws(ObjectGraphError) {
            let copy = try coordinator.migratePersistentStore(store, to: written, type: .sqlite)
            try coordinator.remove(copy)
            if exists {
                defer { try? coordinator.destroyPersistentStore(at: written, type: .sqlite) }
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: written)
            }
        } catch {
            throw CommandFailure("cannot back up \(name) to \(destination.path): \(error)")
        }
        return BackupSummary(storePath: name, destinationPath: destination.path, storeUUID: identifier, replaced: exists)
    }
}

import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// Restoring a store file (a backup) into a PostgreSQL database (`--to postgresql://…`): every row, relationship,
/// key counter, external value and metadata key, under the file's store UUID, in one server transaction.
enum ServerRestore {
    /// Opens the store file at `storeURL` for `model` (refusing a file that is not a store, or one written for
    /// another model version) and fills the database `databaseURL` names with its contents. A database that
    /// already holds an ObjectGraph store is refused unless `force`; then its contents are replaced in the same
    /// transaction, and clients connected to it read everything again. The database is named without its password.
    static func run(model: ManagedObjectModel, storeURL: URL, databaseURL: URL, force: Bool) throws(CommandFailure)
        -> BackupSummary
    {
        let name = StoreURL.redacted(databaseURL)
        let source = storeURL.standardizedFileURL
        let (coordinator, store) = try StoreBackup.open(model: model, storeURL: source)
        PostgresStore.register()
        let existed = (try? PostgresStore.metadata(at: databaseURL)) != nil
        if existed, !force {
            throw CommandFailure("\(name) already holds an ObjectGraph store; pass --force to replace its contents "
                + "with the backup")
        }
        do throws(ObjectGraphError) {
            if force {
                try PostgresStore.restore(store, of: coordinator, to: databaseURL, replacingExisting: true)
            } else {
                let restored = try coordinator.migratePersistentStore(store, to: databaseURL, type: .postgreSQL)
                try coordinator.remove(restored)
            }
        } catch {
            if case .destinationExists = error {
                throw CommandFailure("\(name) already holds an ObjectGraph store; pass --force to replace its "
                    + "contents with the backup")
            }
            throw CommandFailure("cannot restore \(source.path) into \(name): \(error)")
        }
        return BackupSummary(storePath: source.path, destinationPath: name, storeUUID: store.identifier,
            replaced: existed)
    }
}

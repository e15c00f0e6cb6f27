import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PersistentStoreType {
    /// A store in a PostgreSQL database (``PostgresStore``); its URL is a libpq connection URI,
    /// `postgresql://user@host:port/database`. Call ``PostgresStore/register()`` once before adding one.
    public static let postgreSQL = PersistentStoreType(rawValue: "PostgreSQL")
}

extension PostgresStore {
    /// Registers ``PersistentStoreType/postgreSQL`` with the coordinator (idempotent): stores of it can then be added,
    /// and other stores moved into a database with ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)``
    /// (see ``restore(_:of:to:options:replacingExisting:)``).
    public static func register() {
        PersistentStoreCoordinator.registerStoreType(.postgreSQL) { request throws(ObjectGraphError) in
            try open(request)
        }
        PersistentStoreCoordinator.registerStoreRestorer(.postgreSQL) { request throws(ObjectGraphError) in
            try restore(request)
        }
    }

    /// Whether `location` is a PostgreSQL connection URI (`postgresql://…` or `postgres://…`) rather than a file path.
    public static func isConnectionURI(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }
}

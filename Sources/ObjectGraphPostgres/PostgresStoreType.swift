import Foundation
import ObjectGraph

extension PersistentStoreType {
    /// A store in a PostgreSQL database (``PostgresStore``); its URL is a libpq connection URI,
    /// `postgresql://user@host:port/database`. Call ``PostgresStore/register()`` once before adding one.
    public static let postgreSQL = PersistentStoreType(rawValue: "PostgreSQL")
}

extension PostgresStore {
    /// Registers ``PersistentStoreType/postgreSQL`` with the coordinator (idempotent).
    public static func register() {
        PersistentStoreCoordinator.registerStoreType(.postgreSQL) { request throws(ObjectGraphError) in
            try open(request)
        }
    }

    /// Whether `location` is a PostgreSQL connection URI (`postgresql://…` or `postgres://…`) rather than a file path.
    public static func isConnectionURI(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }
}

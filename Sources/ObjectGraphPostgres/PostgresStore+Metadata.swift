import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// The metadata of the store in the database `url` names (a `postgresql://` connection URI), read without a
    /// model and without changing anything — what `objectgraph store-info` shows, like
    /// ``PersistentStoreCoordinator/metadataForPersistentStore(at:)`` for a file.
    ///
    /// - Throws: ``ObjectGraphError/storeUnavailable(store:reason:)`` when the server cannot be reached,
    ///   ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for a database without ObjectGraph's tables or
    ///   with an unreadable `Z_METADATA`.
    public static func metadata(at url: URL) throws(ObjectGraphError) -> StoreMetadata {
        let displayName = StoreURL.redacted(url)
        let connection = try PostgresConnection(uri: url.absoluteString, displayName: displayName)
        let exists = try connection.execute("SELECT to_regclass('\"Z_METADATA\"') IS NOT NULL")
        guard exists.first?[0] == "t" else {
            throw .notAnObjectGraphStore(path: displayName, reason: "the database has no ObjectGraph tables")
        }
        let rows = try connection.execute(#"SELECT "Z_UUID", "Z_PLIST" FROM "Z_METADATA" LIMIT 1"#)
        guard let row = rows.first, let uuid = row[0],
            case .binary(let plist) = PostgresValueCoding.decode(row[1], as: .binary),
            let metadata = StoreMetadata(propertyList: plist, storeUUID: uuid)
        else {
            throw .notAnObjectGraphStore(path: displayName, reason: "its Z_METADATA row is missing or unreadable")
        }
        return metadata
    }

    /// Whether the database at `url` has every text search index `model` asks for (``PostgresTextIndexes``): a
    /// writable client makes them when it opens the store and the server offers `pg_trgm`.
    public static func hasTextIndexes(at url: URL, model: ManagedObjectModel) throws(ObjectGraphError) -> Bool {
        let connection = try PostgresConnection(uri: url.absoluteString, displayName: StoreURL.redacted(url))
        return try PostgresTextIndexes.complete(model, on: connection)
    }

    /// Writes `metadata` as the store's one `Z_METADATA` row (a store being created, or filled by a restore), in
    /// the caller's transaction.
    static func insertMetadata(_ metadata: StoreMetadata, on connection: PostgresConnection) throws(ObjectGraphError) {
        let plist: Data
        do { plist = try metadata.propertyList() } catch {
            throw ObjectGraphError.invalidStoreOption(name: "metadata", reason: "\(error)")
        }
        try connection.execute(#"INSERT INTO "Z_METADATA" ("Z_UUID", "Z_PLIST") VALUES ($1, $2)"#,
            [metadata.storeUUID, PostgresValueCoding.encode(.binary(plist), as: .binary)])
    }
}

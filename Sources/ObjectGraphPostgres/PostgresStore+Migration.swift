import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// The `Z_CHANGES` client name of a migration's transaction: other clients that read it learn that the store
    /// was migrated (and stop following it with their old model).
    static let migrationClient = "objectgraph-migration"

    /// What migrating the store in the database `url` names with `migrator` would do, without changing anything
    /// (`objectgraph migrate --dry-run`).
    ///
    /// - Throws: ``ObjectGraphError/storeUnavailable(store:reason:)``, ``ObjectGraphError/notAnObjectGraphStore(path:reason:)``,
    ///   and the inference's errors (``LightweightMigrator/plan(storeAt:)``).
    public static func migrationPlan(at url: URL, migrator: LightweightMigrator) throws(ObjectGraphError) -> MigrationPlan {
        let metadata = try metadata(at: url)
        return try migrator.inferredSteps(storeHashes: metadata.entityVersionHashes, path: StoreURL.redacted(url)).plan
    }

    /// Migrates the store in the database `url` names to `migrator`'s destination model, in ONE server transaction
    /// (schema and values together, then the new metadata): a failure leaves the database as it was. Other clients
    /// that follow the store hear of it (their coordinators report ``StoreCommitEvent/Kind/migration``).
    @discardableResult
    public static func migrate(at url: URL, migrator: LightweightMigrator) throws(ObjectGraphError) -> MigrationPlan {
        let displayName = StoreURL.redacted(url)
        let connection = try PostgresConnection(uri: url.absoluteString, displayName: displayName)
        return try migrate(on: connection, displayName: displayName, migrator: migrator).plan
    }

    /// Runs the migration on `connection` (one transaction, holding the creation and commit locks, so that no
    /// client opens or saves meanwhile) and returns the plan and the new metadata.
    static func migrate(on connection: PostgresConnection, displayName: String, migrator: LightweightMigrator)
        throws(ObjectGraphError) -> (plan: MigrationPlan, metadata: StoreMetadata)
    {
        try connection.execute("BEGIN")
        do throws(ObjectGraphError) {
            try connection.execute("SELECT pg_advisory_xact_lock(7301001), pg_advisory_xact_lock(7301002)")
            guard var metadata = try readMetadata(on: connection) else {
                throw ObjectGraphError.notAnObjectGraphStore(path: displayName, reason: "it has no ObjectGraph metadata")
            }
            let (plan, steps) = try migrator.inferredSteps(storeHashes: metadata.entityVersionHashes, path: displayName)
            guard let last = steps.last else {
                try connection.execute("COMMIT")
                return (plan, metadata)
            }
            try connection.execute(PostgresSchema.externalDataTable)  // (a store from before it had one)
            var migration = PostgresMigration(connection: connection, displayName: displayName, plan: plan)
            for step in steps { try migration.run(step) }
            try migration.finish(last.destination)
            metadata.entityVersionHashes = migrator.destination.entityVersionHashes
            metadata.versionIdentifiers = migrator.destination.versionIdentifiers.sorted()
            metadata.modelVersionName = migrator.destination.versionName
            let plist: Data
            do { plist = try metadata.propertyList() } catch {
                throw ObjectGraphError.invalidStoreOption(name: "metadata", reason: "\(error)")
            }
            try connection.execute(#"UPDATE "Z_METADATA" SET "Z_PLIST" = $1 WHERE "Z_UUID" = $2"#,
                [PostgresValueCoding.encode(.binary(plist), as: .binary), metadata.storeUUID])
            // A transaction of its own in the log (no object changes), whose NOTIFY tells the other clients.
            let channel = Self.channel(for: metadata.storeUUID)
            try connection.execute(
                #"WITH logged AS (INSERT INTO "Z_CHANGES" ("Z_CLIENT", "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "#
                    + #""Z_UPDATED", "Z_DELETED", "Z_LISTS") VALUES ($1, $2, $3, 'migration', '{}', '{}', '{}', '{}') "#
                    + #"RETURNING "Z_TXID") SELECT pg_notify($4, "Z_TXID"::text) FROM logged"#,
                [migrationClient, processName, migrator.transactionAuthor, channel])
            try connection.execute("COMMIT")
            return (plan, metadata)
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The metadata row, or nil when there is none (or no `Z_METADATA` table).
    static func readMetadata(on connection: PostgresConnection) throws(ObjectGraphError) -> StoreMetadata? {
        let exists = try connection.execute("SELECT to_regclass('\"Z_METADATA\"') IS NOT NULL")
        guard exists.first?[0] == "t" else { return nil }
        let rows = try connection.execute(#"SELECT "Z_UUID", "Z_PLIST" FROM "Z_METADATA" LIMIT 1"#)
        guard let row = rows.first, let uuid = row[0],
            case .binary(let plist) = PostgresValueCoding.decode(row[1], as: .binary)
        else { return nil }
        return StoreMetadata(propertyList: plist, storeUUID: uuid)
    }
}

import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// The `NOTIFY` channel of the store whose UUID is `storeUUID`.
    static func channel(for storeUUID: String) -> String {
        "objectgraph_" + storeUUID.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    /// Fills the database `url` names with everything `store` (one of `coordinator`'s stores, of any type; a backup
    /// file, say) holds, in ONE server transaction: every row with its key and version, to-one and to-many
    /// relationships (order included), external binary values (into `Z_EXTERNALDATA` from the threshold of
    /// `options`), the key counters past the largest key, and the metadata (the app's keys included), under
    /// `store`'s UUID. `store` stays where it is; open the database as any PostgreSQL store afterwards.
    ///
    /// A database without ObjectGraph's tables is filled. One that has them is refused unless `replacingExisting`;
    /// then its ObjectGraph tables are replaced in the same transaction (a failure leaves them as they were), and
    /// clients connected to it read every row again and report what changed as one commit, as after a history
    /// purge they had not seen (a client whose model no longer matches stops following the store, as after a
    /// migration). ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)`` to `.postgreSQL` does the
    /// same without replacing, and puts the new store in the old one's place.
    ///
    /// - Returns: the metadata written.
    /// - Throws: ``ObjectGraphError/destinationExists(path:)`` for a database with ObjectGraph's tables (without
    ///   `replacingExisting`), ``ObjectGraphError/storeUnavailable(store:reason:)`` when the server cannot be reached,
    ///   ``ObjectGraphError/unknownStore(identifier:)`` when `store` is not `coordinator`'s, and the store's read
    ///   errors or the server's. Errors name the database without its password.
    @discardableResult
    public static func restore(_ store: PersistentStore, of coordinator: PersistentStoreCoordinator, to url: URL,
        options: PersistentStoreOptions = PersistentStoreOptions(), replacingExisting: Bool) throws(ObjectGraphError)
        -> StoreMetadata
    {
        try restore(try coordinator.restoreRequest(copying: store, to: url, options: options,
            replacingExisting: replacingExisting))
    }

    /// ``restore(_:of:to:options:replacingExisting:)`` of a request (the coordinator's restorer for `.postgreSQL`).
    @discardableResult
    static func restore(_ request: StoreRestoreRequest) throws(ObjectGraphError) -> StoreMetadata {
        let url = request.url
        let displayName = StoreURL.redacted(url)
        guard let scheme = url.scheme?.lowercased(), ["postgresql", "postgres"].contains(scheme) else {
            throw .notAnObjectGraphStore(path: displayName,
                reason: "a PostgreSQL store needs a postgresql://user@host:port/database URL")
        }
        guard request.options.externalBinaryDataThreshold >= 0 else {
            throw .invalidStoreOption(name: "externalBinaryDataThreshold",
                reason: "\(request.options.externalBinaryDataThreshold) is negative; give a size in bytes, 0 or more")
        }
        let model = request.model
        let connection = try PostgresConnection(uri: url.absoluteString, displayName: displayName)
        try connection.execute("BEGIN")
        do throws(ObjectGraphError) {
            // No client opens, creates, migrates or saves meanwhile.
            try connection.execute("SELECT pg_advisory_xact_lock(7301001), pg_advisory_xact_lock(7301002)")
            let hasTables = try connection.execute("SELECT to_regclass('\"Z_METADATA\"') IS NOT NULL").first?[0] == "t"
            var replaced: StoreMetadata?
            if hasTables {
                guard request.replacesExisting else { throw ObjectGraphError.destinationExists(path: displayName) }
                replaced = try readMetadata(on: connection)
                try dropTables(replacing: replaced, model: model, on: connection)
            }
            for statement in PostgresSchema(model: model).creationStatements() { try connection.execute(statement) }
            let restoring = PostgresStore(uri: url.absoluteString, displayName: displayName, model: model,
                isReadOnly: false, writer: connection, identifier: request.storeIdentifier,
                externalThreshold: request.options.externalBinaryDataThreshold)
            try restoring.write(request)
            let metadata = StoreMetadata(storeType: PersistentStoreType.postgreSQL.rawValue,
                storeUUID: request.storeIdentifier, entityVersionHashes: model.entityVersionHashes,
                versionIdentifiers: model.versionIdentifiers.sorted(), userInfo: request.userInfo,
                modelVersionName: model.versionName)
            try insertMetadata(metadata, on: connection)
            if hasTables {
                // The log described the old contents: it goes, recorded as a purge through a new transaction number,
                // so that every connected client (told on the old store's channel) reads all rows again.
                // (A client's save made against the old contents is refused: see Z_RESTORED.)
                try connection.execute(#"DELETE FROM "Z_CHANGES""#)
                let number = try connection.execute(#"SELECT nextval(pg_get_serial_sequence('"Z_CHANGES"', 'Z_TXID'))"#)
                    .first?[0].flatMap { $0 }
                for table in ["Z_PURGED", "Z_RESTORED"] {
                    try connection.execute(#"INSERT INTO "\#(table)" ("Z_ONE", "Z_THROUGH") VALUES (1, $1::bigint) "#
                        + #"ON CONFLICT ("Z_ONE") DO UPDATE SET "Z_THROUGH" = EXCLUDED."Z_THROUGH""#, [number])
                }
                let channels = Set([replaced?.storeUUID, request.storeIdentifier].compactMap { $0 }.map(channel(for:)))
                for channel in channels.sorted() { try connection.execute("SELECT pg_notify($1, 'restored')", [channel]) }
            }
            try connection.execute("COMMIT")
            return metadata
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Drops the ObjectGraph tables of the store being replaced (those its metadata and `model` name, and the
    /// fixed ones; the change log stays, so that transaction numbers never repeat).
    private static func dropTables(replacing old: StoreMetadata?, model: ManagedObjectModel,
        on connection: PostgresConnection) throws(ObjectGraphError)
    {
        let entities = Set((old?.entityVersionHashes.keys).map(Array.init) ?? []).union(model.entities.map(\.name))
        var tables = entities.sorted().map { PostgresSQL.identifier("Z" + $0.uppercased()) }
        tables += ["Z_METADATA", "Z_PRIMARYKEY", "Z_RELATIONSHIPLISTS", "Z_EXTERNALDATA"].map(PostgresSQL.identifier)
        try connection.execute("DROP TABLE IF EXISTS " + tables.joined(separator: ", "))
    }

    /// Writes the request's rows, external values, lists and key counters into the (empty) tables, in the caller's
    /// transaction.
    private func write(_ request: StoreRestoreRequest) throws(ObjectGraphError) {
        var inserts: [StoreSaveRequest.Insert] = []
        var versions: [ManagedObjectID: Int64] = [:]
        var highest: [String: Int64] = request.primaryKeyMaxima
        for row in request.rows {
            guard let entity = model.entity(named: row.objectID.entityName), !entity.isAbstract,
                let key = row.objectID.primaryKey
            else {
                throw .storeFailed(store: displayName,
                    reason: "the row \(row.objectID) names no concrete entity of the model, or has no key")
            }
            inserts.append(StoreSaveRequest.Insert(temporaryID: row.objectID, entity: entity, values: row.values,
                toOne: row.toOne, permanentID: row.objectID))
            versions[row.objectID] = row.version
            let root = model.rootEntity(of: entity).name
            highest[root] = max(highest[root] ?? 0, key)
        }
        for insert in inserts { try refuseUnstorableText(insert.values, of: insert.entity) }
        var external = ExternalWrites(store: identifier, opening: clientID, displayName: displayName)
        try writer.pipeline(insertStatements(inserts, reference: { $0.flatMap(PostgresReference.string) },
            external: &external, versions: versions) + external.statements)
        var keys: [String] = [], positions: [Int64] = [], members: [String] = []
        for (key, list) in request.lists.sorted(by: { $0.key < $1.key }) {
            for (position, member) in list.enumerated() {
                guard let reference = PostgresReference.string(member) else { continue }
                keys.append(key)
                positions.append(Int64(position + 1))
                members.append(reference)
            }
        }
        var start = 0
        while start < keys.count {
            let end = min(start + 20_000, keys.count)
            try writer.execute(#"INSERT INTO "Z_RELATIONSHIPLISTS" ("Z_KEY", "Z_POSITION", "Z_MEMBER") "#
                + #"SELECT * FROM unnest($1::text[], $2::integer[], $3::text[])"#,
                [PostgresSQL.textArray(Array(keys[start..<end])), PostgresSQL.integerArray(Array(positions[start..<end])),
                    PostgresSQL.textArray(Array(members[start..<end]))])
            start = end
        }
        for (root, maximum) in highest.sorted(by: { $0.key < $1.key }) where maximum > 0 {
            try writer.execute(#"UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = greatest("Z_MAX", $2::bigint) WHERE "Z_NAME" = $1"#,
                [root, String(maximum)])
        }
    }
}

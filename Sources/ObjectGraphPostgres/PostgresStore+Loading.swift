import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// Connects to the database a `postgresql://` URL names, creates the tables the model needs when they are
    /// missing (in one transaction, one client at a time), checks the store was written for this model, and
    /// loads the replica.
    static func open(_ request: StoreOpenRequest) throws(ObjectGraphError) -> OpenedStore {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), ["postgresql", "postgres"].contains(scheme)
        else {
            throw .notAnObjectGraphStore(path: request.url.map(StoreURL.redacted) ?? "(none)",
                reason: "a PostgreSQL store needs a postgresql://user@host:port/database URL")
        }
        let displayName = StoreURL.redacted(url)
        let writer = try PostgresConnection(uri: url.absoluteString, displayName: displayName)
        let model = request.model
        let readOnly = request.options.isReadOnly
        var metadata: StoreMetadata
        try writer.execute("BEGIN")
        do throws(ObjectGraphError) {
            if !readOnly {
                // One creator at a time: two clients opening a new database must not both create it.
                try writer.execute("SELECT pg_advisory_xact_lock(7301001)")
                for statement in PostgresSchema(model: model).creationStatements() { try writer.execute(statement) }
            }
            let exists = try writer.execute("SELECT to_regclass('\"Z_METADATA\"') IS NOT NULL")
            guard exists.first?[0] == "t" else {
                throw ObjectGraphError.notAnObjectGraphStore(path: displayName,
                    reason: "it has no ObjectGraph tables, and a read-only store is never created")
            }
            let rows = try writer.execute(#"SELECT "Z_UUID", "Z_PLIST" FROM "Z_METADATA" LIMIT 1"#)
            if let row = rows.first, let uuid = row[0], case .binary(let plist) = PostgresValueCoding.decode(row[1], as: .binary),
                let stored = StoreMetadata(propertyList: plist, storeUUID: uuid)
            {
                metadata = stored
            } else {
                guard !readOnly else {
                    throw ObjectGraphError.notAnObjectGraphStore(path: displayName, reason: "Z_METADATA is empty")
                }
                metadata = StoreMetadata(storeType: PersistentStoreType.postgreSQL.rawValue, storeUUID: UUID().uuidString,
                    entityVersionHashes: model.entityVersionHashes, versionIdentifiers: model.versionIdentifiers.sorted())
                let plist: Data
                do { plist = try metadata.propertyList() } catch {
                    throw ObjectGraphError.invalidStoreOption(name: "metadata", reason: "\(error)")
                }
                try writer.execute(#"INSERT INTO "Z_METADATA" ("Z_UUID", "Z_PLIST") VALUES ($1, $2)"#,
                    [metadata.storeUUID, PostgresValueCoding.encode(.binary(plist), as: .binary)])
            }
            try writer.execute("COMMIT")
        } catch {
            _ = try? writer.execute("ROLLBACK")
            throw error
        }
        let differing = Set(metadata.entityVersionHashes.keys).union(model.entityVersionHashes.keys).filter {
            metadata.entityVersionHashes[$0] != model.entityVersionHashes[$0]
        }
        guard differing.isEmpty else {
            throw .incompatibleModel(path: displayName, entities: differing.sorted(),
                reason: "migrating a PostgreSQL store to another model version is not supported yet")
        }
        let store = PostgresStore(uri: url.absoluteString, displayName: displayName, model: model, isReadOnly: readOnly,
            writer: writer, identifier: metadata.storeUUID)
        try store.withLock { () throws(ObjectGraphError) in try store.reloadAll() }
        store.startListening()
        return OpenedStore(store: store, metadata: metadata)
    }

    /// Reloads the replica when a failed commit left it in doubt. Call holding ``lock``.
    func reloadIfNeeded() throws(ObjectGraphError) {
        guard needsReload else { return }
        try reloadAll()
    }

    /// Reads every row and list from one consistent snapshot of the server into the replica. Call holding ``lock``.
    func reloadAll() throws(ObjectGraphError) {
        try writer.ensureConnected()
        _ = try reload(on: writer)
    }

    /// ``reloadAll()`` on `connection`, returning what the replica's contents changed as one commit (after a
    /// history purge took transactions this client had not seen). Call holding ``lock``.
    func reloadAllReportingChanges(on connection: PostgresConnection) throws(ObjectGraphError) -> RemoteCommit {
        let difference = try reload(on: connection)
        return RemoteCommit(inserted: difference.inserted,
            updated: Dictionary(difference.updated.map { ($0, []) }) { first, _ in first }, deleted: difference.deleted,
            transactionNumber: lastTransaction)
    }

    private func reload(on connection: PostgresConnection) throws(ObjectGraphError) -> StoreReplica.Difference {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(ObjectGraphError) {
            let newest = try newestTransaction(on: connection)
            var rows: [RowSnapshot] = []
            for entity in model.entities where !entity.isAbstract {
                rows += try loadRows(of: entity, keys: nil, on: connection)
            }
            let lists = try loadLists(keys: nil, on: connection)
            try connection.execute("COMMIT")
            let difference = replicaStorage.replaceAllReportingDifference(rows: rows, lists: lists.compactMapValues { $0 })
            lastTransaction = newest
            needsReload = false
            return difference
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The rows of the concrete `entity` with these primary keys (all for nil), read on `connection`.
    func loadRows(of entity: EntityDescription, keys: [Int64]?, on connection: PostgresConnection? = nil)
        throws(ObjectGraphError) -> [RowSnapshot]
    {
        let connection = connection ?? writer
        let attributes = PostgresSchema.storedAttributes(entity)
        let toOnes = PostgresSchema.storedToOnes(entity)
        let columns = [#""Z_PK""#, #""Z_OPT""#] + PostgresSchema.dataColumns(entity)
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(PostgresSchema.table(entity))"
        var parameters: [String?] = []
        if let keys {
            guard !keys.isEmpty else { return [] }
            sql += #" WHERE "Z_PK" = ANY($1::bigint[])"#
            parameters.append(PostgresSQL.integerArray(keys))
        }
        var result: [RowSnapshot] = []
        for row in try connection.execute(sql, parameters) {
            guard let key = row[0].flatMap({ Int64($0) }), let version = row[1].flatMap({ Int64($0) }) else { continue }
            var values = [AttributeValue](repeating: .null, count: entity.attributes.count)
            for (offset, stored) in attributes.enumerated() {
                values[stored.index] = PostgresValueCoding.decode(row[2 + offset], as: stored.attribute.attributeType)
            }
            var toOne = [ManagedObjectID?](repeating: nil, count: entity.relationships.count)
            for (offset, stored) in toOnes.enumerated() {
                guard let text = row[2 + attributes.count + offset], let reference = PostgresReference.parse(text) else {
                    continue
                }
                toOne[stored.index] = replicaStorage.objectID(entityName: reference.entityName,
                    primaryKey: reference.primaryKey)
            }
            result.append(RowSnapshot(objectID: replicaStorage.objectID(entityName: entity.name, primaryKey: key),
                values: values, version: version, toOne: toOne))
        }
        return result
    }

    /// The relationship lists with these keys (all for nil); a key without members maps to nil.
    func loadLists(keys: [String]?, on connection: PostgresConnection? = nil)
        throws(ObjectGraphError) -> [String: [ManagedObjectID]?]
    {
        let connection = connection ?? writer
        var sql = #"SELECT "Z_KEY", "Z_MEMBER" FROM "Z_RELATIONSHIPLISTS""#
        var parameters: [String?] = []
        var lists: [String: [ManagedObjectID]?] = [:]
        if let keys {
            guard !keys.isEmpty else { return [:] }
            for key in keys { lists[key] = .some(nil) }
            sql += #" WHERE "Z_KEY" = ANY($1::text[])"#
            parameters.append(PostgresSQL.textArray(keys))
        }
        sql += #" ORDER BY "Z_KEY", "Z_POSITION""#
        for row in try connection.execute(sql, parameters) {
            guard let key = row[0], let member = row[1], let reference = PostgresReference.parse(member) else { continue }
            let id = replicaStorage.objectID(entityName: reference.entityName, primaryKey: reference.primaryKey)
            var list = (lists[key] ?? nil) ?? []
            list.append(id)
            lists[key] = list
        }
        return lists
    }
}

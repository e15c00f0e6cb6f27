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
        guard request.options.externalBinaryDataThreshold >= 0 else {
            throw .invalidStoreOption(name: "externalBinaryDataThreshold",
                reason: "\(request.options.externalBinaryDataThreshold) is negative; give a size in bytes, 0 or more")
        }
        let writer = try PostgresConnection(uri: url.absoluteString, displayName: displayName)
        let model = request.model
        let readOnly = request.options.isReadOnly
        var metadata = try prepare(writer, displayName: displayName, model: model, readOnly: readOnly)
        let differing = LightweightMigrator.differing(metadata.entityVersionHashes, model)
        if !differing.isEmpty {
            // Written for another version of the model: migrated in place (one server transaction) when the options
            // allow it, as an SQLite store is.
            func refuse(_ reason: String) -> ObjectGraphError {
                .incompatibleModel(path: displayName, entities: differing, reason: reason)
            }
            let bundleURL = try PersistentStoreCoordinator.migrationBundleURL(model: model, options: request.options,
                refuse: refuse)
            let bundle: ModelBundle
            do throws(ModelLoadError) {
                bundle = try ModelBundle(contentsOf: bundleURL)
            } catch {
                throw refuse("the model bundle cannot be read (\(error))")
            }
            metadata = try migrate(on: writer, displayName: displayName,
                migrator: LightweightMigrator(bundle: bundle, destination: model)).metadata
            let left = LightweightMigrator.differing(metadata.entityVersionHashes, model)
            guard left.isEmpty else {
                throw .incompatibleModel(path: displayName, entities: left, reason: "the migration did not reach the model")
            }
            metadata = try prepare(writer, displayName: displayName, model: model, readOnly: readOnly)
        }
        let store = PostgresStore(uri: url.absoluteString, displayName: displayName, model: model, isReadOnly: readOnly,
            writer: writer, identifier: metadata.storeUUID,
            externalThreshold: request.options.externalBinaryDataThreshold)
        // (A read-only client of a database made before the folded-text columns finds them missing.)
        store.hasFoldedColumns = try PostgresFoldedColumns.missing(in: model, on: writer).isEmpty
        let progress = request.isProgressFollowed ? request.reportProgress : nil
        try store.withLock { () throws(ObjectGraphError) in try store.reloadAll(reporting: progress) }
        ExternalValueReaders.register(store, forStore: store.identifier, opening: store.clientID)  // (reads its values)
        store.startListening()
        return OpenedStore(store: store, metadata: metadata)
    }

    /// Creates the tables the model needs when they are missing and the metadata when there is none, in one
    /// transaction, one client at a time, and returns the metadata. A store written for another model version is
    /// left untouched (its metadata returned, for the caller to migrate or refuse).
    private static func prepare(_ writer: PostgresConnection, displayName: String, model: ManagedObjectModel,
        readOnly: Bool) throws(ObjectGraphError) -> StoreMetadata
    {
        try writer.execute("BEGIN")
        do throws(ObjectGraphError) {
            // One creator at a time: two clients opening a new database must not both create it.
            if !readOnly { try writer.execute("SELECT pg_advisory_xact_lock(7301001)") }
            if let stored = try readMetadata(on: writer) {
                if stored.entityVersionHashes == model.entityVersionHashes, !readOnly {
                    for statement in PostgresSchema(model: model).creationStatements() { try writer.execute(statement) }
                    try upgradeFoldedColumns(model: model, on: writer)
                    try PostgresTextIndexes.reconcile(model, on: writer)
                }
                try writer.execute("COMMIT")
                return stored
            }
            guard !readOnly else {
                throw ObjectGraphError.notAnObjectGraphStore(path: displayName,
                    reason: "it has no ObjectGraph tables, and a read-only store is never created")
            }
            for statement in PostgresSchema(model: model).creationStatements() { try writer.execute(statement) }
            try PostgresTextIndexes.reconcile(model, on: writer)
            let metadata = StoreMetadata(storeType: PersistentStoreType.postgreSQL.rawValue, storeUUID: UUID().uuidString,
                entityVersionHashes: model.entityVersionHashes, versionIdentifiers: model.versionIdentifiers.sorted(),
                modelVersionName: model.versionName)
            try insertMetadata(metadata, on: writer)
            try writer.execute("COMMIT")
            return metadata
        } catch {
            _ = try? writer.execute("ROLLBACK")
            throw error
        }
    }

    /// Adds the folded-text columns a database made before them lacks, and fills them (``PostgresFoldedColumns``),
    /// in the caller's transaction (which holds the creation lock: one client at a time), taking the writers' lock
    /// first so that no save writes meanwhile. An up-to-date database costs one read of `information_schema`, and
    /// saves never wait for it.
    private static func upgradeFoldedColumns(model: ManagedObjectModel, on writer: PostgresConnection)
        throws(ObjectGraphError)
    {
        // (Read under the creation lock, which every other path that adds columns — opening, migrating, restoring —
        // takes too: what is missing stays missing until this transaction adds it.)
        let missing = try PostgresFoldedColumns.missing(in: model, on: writer)
        guard !missing.isEmpty else { return }
        try writer.execute("SELECT pg_advisory_xact_lock(7301002)")
        try PostgresFoldedColumns.add(missing, on: writer)
    }

    /// Reloads the replica when a failed commit left it in doubt. Call holding ``lock``.
    func reloadIfNeeded() throws(ObjectGraphError) {
        guard needsReload else { return }
        try reloadAll()
    }

    /// Reads every row and list from one consistent snapshot of the server into the replica, reporting the
    /// fraction read to `progress` when given. Call holding ``lock``.
    func reloadAll(reporting progress: ((Double) -> Void)? = nil) throws(ObjectGraphError) {
        try writer.ensureConnected()
        _ = try reload(on: writer, reporting: progress)
    }

    /// ``reloadAll()`` on `connection`, returning what the replica's contents changed as one commit (after a
    /// history purge took transactions this client had not seen). Call holding ``lock``.
    func reloadAllReportingChanges(on connection: PostgresConnection) throws(ObjectGraphError) -> RemoteCommit {
        let difference = try reload(on: connection)
        return RemoteCommit(inserted: difference.inserted,
            updated: Dictionary(difference.updated.map { ($0, []) }) { first, _ in first }, deleted: difference.deleted,
            transactionNumber: lastTransaction)
    }

    /// The rows are read a part at a time (``partSize`` by key, in one snapshot), so that what the server sends is
    /// never held whole beside the replica: read in one statement per table, a million people took 1 GB at the peak
    /// for a replica of about 500 MB. With `progress`, the fraction of all rows read so far is reported after each part.
    private func reload(on connection: PostgresConnection, reporting progress: ((Double) -> Void)? = nil)
        throws(ObjectGraphError) -> StoreReplica.Difference
    {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do throws(ObjectGraphError) {
            let newest = try newestTransaction(on: connection)
            let entities = model.entities.filter { !$0.isAbstract }
            var rows: [RowSnapshot] = []
            // Counted in the same snapshot the rows are read from; the lists are a last tenth.
            var total = 0
            if progress != nil {
                for entity in entities {
                    let counted = try connection.execute("SELECT count(*) FROM \(PostgresSchema.table(entity))")
                    total += counted.first?[0].flatMap { Int($0) } ?? 0
                }
            }
            let share = 0.9 / Double(max(total, 1))
            for entity in entities {
                let start = rows.count
                var after: Int64 = .min
                while true {
                    let part = try appendRows(of: entity, keys: nil, after: after, limit: Self.partSize,
                        on: connection, to: &rows)
                    progress?(Double(rows.count) * share)
                    guard part.count == Self.partSize, let last = part.lastKey else { break }
                    after = last
                }
                // The table's external values in one statement (asked for part by part, by owner, they took a
                // third of the opening of a million people).
                try attachExternalValues(to: &rows, from: start, of: entity, all: true, on: connection)
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

    /// How many rows reading the replica takes per statement.
    static let partSize = 25_000

    /// The rows of the concrete `entity` with these primary keys (all for nil), read on `connection`.
    func loadRows(of entity: EntityDescription, keys: [Int64]?, on connection: PostgresConnection? = nil)
        throws(ObjectGraphError) -> [RowSnapshot]
    {
        let connection = connection ?? writer
        var result: [RowSnapshot] = []
        try appendRows(of: entity, keys: keys, on: connection, to: &result)
        try attachExternalValues(to: &result, from: 0, of: entity, all: keys == nil, on: connection)
        return result
    }

    /// Appends the rows of the concrete `entity` with these primary keys (all for nil) to `result`, read on
    /// `connection`, without the references to their external values (``attachExternalValues(to:from:of:all:on:)``);
    /// with `limit`, at most that many of them with keys above `after`, in key order. Returns how many rows it
    /// appended and the last one's key. (Appended in place: a million rows read a part at a time and copied from
    /// each part into the whole cost a retain and release of every row's arrays, a fifth of the opening.)
    @discardableResult
    func appendRows(of entity: EntityDescription, keys: [Int64]?, after: Int64 = .min, limit: Int? = nil,
        on connection: PostgresConnection, to result: inout [RowSnapshot]) throws(ObjectGraphError)
        -> (count: Int, lastKey: Int64?)
    {
        let attributes = PostgresSchema.storedAttributes(entity)
        let toOnes = PostgresSchema.storedToOnes(entity)
        let columns = [#""Z_PK""#, #""Z_OPT""#] + PostgresSchema.dataColumns(entity)
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(PostgresSchema.table(entity))"
        var parameters: [String?] = []
        if let keys {
            guard !keys.isEmpty else { return (0, nil) }
            sql += #" WHERE "Z_PK" = ANY($1::bigint[])"#
            parameters.append(PostgresSQL.integerArray(keys))
        } else if let limit {
            sql += #" WHERE "Z_PK" > $1 ORDER BY "Z_PK" LIMIT \#(max(1, limit))"#
            parameters.append(String(after))
        }
        // Positions and types only: going over `attributes` itself copied each attribute's description for every
        // value of every row (a third of the time to read a table).
        let slots = attributes.map { (index: $0.index, type: $0.attribute.attributeType) }
        let before = result.count
        var lastKey: Int64?
        let width = entity.attributes.count, relationships = entity.relationships.count
        try connection.forEachRow(sql, parameters) { row in
            guard let key = row.text(0).flatMap({ Int64($0) }), let version = row.text(1).flatMap({ Int64($0) }) else {
                return
            }
            var values = [AttributeValue](repeating: .null, count: width)
            for (offset, slot) in slots.enumerated() {
                values[slot.index] = PostgresValueCoding.decode(row.text(2 + offset), as: slot.type)
            }
            var toOne = [ManagedObjectID?](repeating: nil, count: relationships)
            for (offset, stored) in toOnes.enumerated() {
                guard let text = row.text(2 + attributes.count + offset), let reference = PostgresReference.parse(text)
                else { continue }
                toOne[stored.index] = replicaStorage.objectID(entityName: reference.entityName,
                    primaryKey: reference.primaryKey)
            }
            result.append(RowSnapshot(objectID: replicaStorage.objectID(entityName: entity.name, primaryKey: key),
                values: values, version: version, toOne: toOne))
            lastKey = key
        }
        return (result.count - before, lastKey)
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
        // The rows come list by list: each list is built in a local array and stored once it is complete (appending
        // to the dictionary's copy copied the whole list for every member, quadratic in a list's length).
        var current: (key: String, members: [ManagedObjectID])?
        for row in try connection.execute(sql, parameters) {
            guard let key = row[0], let member = row[1], let reference = PostgresReference.parse(member) else { continue }
            let id = replicaStorage.objectID(entityName: reference.entityName, primaryKey: reference.primaryKey)
            if current?.key != key {
                if let finished = current { lists[finished.key] = finished.members }
                current = (key, [])
            }
            current?.members.append(id)
        }
        if let finished = current { lists[finished.key] = finished.members }
        return lists
    }
}

import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore {
    /// Applies the whole request in one server transaction, or nothing: keys reserved, rows updated and deleted only
    /// at their expected versions (otherwise ``ObjectGraphError/mergeConflicts(_:)``), rows inserted, relationship
    /// lists rewritten, and one `Z_CHANGES` row with its `NOTIFY`, which other clients receive once it commits.
    /// A broken connection fails the save with ``ObjectGraphError/storeUnavailable(store:reason:)``; the next save
    /// connects again.
    public func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        return try withLock { () throws(ObjectGraphError) in
            try refuseIfMigratedAway()
            try writer.ensureConnected()
            try reloadIfNeeded()
            return try transact(request, lists: nil)
        }
    }

    /// Runs `request` in one server transaction and applies it to the replica. `lists` (a replica and keys) gives
    /// relationship lists to take over as they are there (a batch delete's delete rules). Call holding ``lock``.
    func transact(_ request: StoreSaveRequest, lists: (source: StoreReplica, keys: Set<String>)?)
        throws(ObjectGraphError) -> StoreSaveResult
    {
        var replicaChanged = false
        do throws(ObjectGraphError) {
            // Writers take turns (one round trip with BEGIN), so Z_CHANGES numbers follow commit order.
            try writer.executeScript("BEGIN; SELECT pg_advisory_xact_lock(7301002)")
            let result = try saveInTransaction(request, lists: lists, replicaChanged: &replicaChanged)
            try writer.execute("COMMIT")
            return result
        } catch {
            _ = try? writer.execute("ROLLBACK")
            // The replica took the save before the server failed to: it must be read again.
            if replicaChanged { needsReload = true }
            if case .mergeConflicts(let conflicts) = error { refreshReplica(for: conflicts.map(\.objectID)) }
            throw error
        }
    }

    private func saveInTransaction(
        _ original: StoreSaveRequest, lists: (source: StoreReplica, keys: Set<String>)?, replicaChanged: inout Bool
    ) throws(ObjectGraphError) -> StoreSaveResult {
        var request = original
        var needingKeys: [String: [Int]] = [:]
        for (index, insert) in request.inserts.enumerated() where insert.permanentID == nil {
            needingKeys[model.rootEntity(of: insert.entity).name, default: []].append(index)
        }
        for (root, indexes) in needingKeys.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: root) else { throw .unknownEntity(root) }
            let keys = try reserveKeys(for: entity, count: indexes.count)
            for (index, key) in zip(indexes, keys) {
                request.inserts[index].permanentID = replicaStorage.objectID(
                    entityName: request.inserts[index].entity.name, primaryKey: key)
            }
        }
        var permanent: [ManagedObjectID: ManagedObjectID] = [:]
        for insert in request.inserts { permanent[insert.temporaryID] = insert.permanentID }
        func reference(_ id: ManagedObjectID?) -> String? { id.flatMap { PostgresReference.string(permanent[$0] ?? $0) } }

        var conflicts: [MergeConflict] = []
        var external = ExternalWrites()
        for update in request.updates {
            guard let key = update.objectID.primaryKey else { continue }
            var parameters: [String?] = []
            var assignments: [String] = []
            for (index, attribute) in PostgresSchema.storedAttributes(update.entity) {
                let value = update.values.indices.contains(index) ? update.values[index] : .null
                parameters.append(PostgresValueCoding.encode(
                    external.route(value, of: attribute, owner: PostgresReference.string(update.objectID),
                        threshold: externalThreshold, replacing: true),
                    as: attribute.attributeType))
                assignments.append("\(PostgresSchema.column(attribute)) = $\(parameters.count)")
            }
            for (index, name) in PostgresSchema.storedToOnes(update.entity) {
                parameters.append(reference(update.toOne.indices.contains(index) ? update.toOne[index] : nil))
                assignments.append("\(PostgresSchema.column(name)) = $\(parameters.count)")
            }
            assignments.append(#""Z_OPT" = "Z_OPT" + 1"#)
            parameters += [String(key), String(update.expectedVersion)]
            let changed = try writer.executeCount(
                "UPDATE \(PostgresSchema.table(update.entity)) SET \(assignments.joined(separator: ", ")) "
                    + #"WHERE "Z_PK" = $\#(parameters.count - 1) AND "Z_OPT" = $\#(parameters.count)"#, parameters)
            if changed == 0 { conflicts.append(try conflict(update.objectID, update.entity, update.expectedVersion)) }
        }
        for delete in request.deletes {
            guard let key = delete.objectID.primaryKey else { continue }
            let changed = try writer.executeCount(
                #"DELETE FROM \#(PostgresSchema.table(delete.entity)) WHERE "Z_PK" = $1 AND "Z_OPT" = $2"#,
                [String(key), String(delete.expectedVersion)])
            if changed == 0 { conflicts.append(try conflict(delete.objectID, delete.entity, delete.expectedVersion)) }
        }
        if !conflicts.isEmpty { throw .mergeConflicts(conflicts) }
        try insertRows(request.inserts, reference: reference, external: &external)
        external.removedOwners = request.deletes.compactMap { PostgresReference.string($0.objectID) }
        try external.write(on: writer)

        replicaChanged = true
        var result = try replicaStorage.save(request)
        var touched = replicaStorage.relationshipKeys(touchedBy: request, permanentIDs: result.permanentIDs)
        if let lists {
            replicaStorage.apply(rows: [], deleted: [],
                lists: Dictionary(uniqueKeysWithValues: lists.keys.map { ($0, lists.source.relationshipList(forKey: $0)) }))
            touched.formUnion(lists.keys)
        }
        let listKeys = touched.sorted()
        try writeLists(listKeys)
        let inserted = request.inserts.compactMap { reference($0.permanentID) }
        let updated = request.updates.compactMap { PostgresReference.string($0.objectID) }
        let deleted = request.deletes.compactMap { PostgresReference.string($0.objectID) }
        result.transactionNumber = try logTransaction(inserted: inserted, updated: updated, deleted: deleted,
            lists: listKeys, author: request.author, contextName: request.contextName)
        return result
    }

    /// Inserts rows with multi-row `INSERT`s, grouped by entity.
    private func insertRows(_ inserts: [StoreSaveRequest.Insert], reference: (ManagedObjectID?) -> String?,
        external: inout ExternalWrites) throws(ObjectGraphError)
    {
        var byEntity: [String: [StoreSaveRequest.Insert]] = [:]
        for insert in inserts { byEntity[insert.entity.name, default: []].append(insert) }
        for (_, group) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = group.first?.entity else { continue }
            let attributes = PostgresSchema.storedAttributes(entity)
            let toOnes = PostgresSchema.storedToOnes(entity)
            let columns = [#""Z_PK""#, #""Z_ENT""#, #""Z_OPT""#] + PostgresSchema.dataColumns(entity)
            let perRow = columns.count
            let chunkSize = max(1, 30_000 / perRow)
            var start = 0
            while start < group.count {
                let chunk = group[start..<min(start + chunkSize, group.count)]
                var parameters: [String?] = []
                var tuples: [String] = []
                for insert in chunk {
                    guard let key = insert.permanentID?.primaryKey else { continue }
                    let first = parameters.count + 1
                    parameters += [String(key), String(model.entityNumber(of: entity)), "1"]
                    for (index, attribute) in attributes {
                        let value = insert.values.indices.contains(index) ? insert.values[index] : .null
                        parameters.append(PostgresValueCoding.encode(
                            external.route(value, of: attribute, owner: reference(insert.permanentID),
                                threshold: externalThreshold, replacing: false),
                            as: attribute.attributeType))
                    }
                    for (index, _) in toOnes {
                        parameters.append(reference(insert.toOne.indices.contains(index) ? insert.toOne[index] : nil))
                    }
                    tuples.append("(" + (first..<(first + perRow)).map { "$\($0)" }.joined(separator: ", ") + ")")
                }
                if !tuples.isEmpty {
                    try writer.execute("INSERT INTO \(PostgresSchema.table(entity)) (\(columns.joined(separator: ", "))) "
                        + "VALUES " + tuples.joined(separator: ", "), parameters)
                }
                start += chunkSize
            }
        }
    }

    /// Rewrites the relationship lists `keys` as the replica now holds them.
    private func writeLists(_ keys: [String]) throws(ObjectGraphError) {
        guard !keys.isEmpty else { return }
        try writer.execute(#"DELETE FROM "Z_RELATIONSHIPLISTS" WHERE "Z_KEY" = ANY($1::text[])"#,
            [PostgresSQL.textArray(keys)])
        for key in keys {
            let members = (replicaStorage.relationshipList(forKey: key) ?? []).compactMap(PostgresReference.string)
            guard !members.isEmpty else { continue }
            try writer.execute(#"INSERT INTO "Z_RELATIONSHIPLISTS" ("Z_KEY", "Z_POSITION", "Z_MEMBER") "#
                + #"SELECT $1, u.position, u.member FROM unnest($2::text[]) WITH ORDINALITY AS u(member, position)"#,
                [key, PostgresSQL.textArray(members)])
        }
    }

    /// Records the transaction in `Z_CHANGES` and notifies the store's channel (delivered at commit).
    private func logTransaction(
        inserted: [String], updated: [String], deleted: [String], lists: [String], author: String?, contextName: String?
    ) throws(ObjectGraphError) -> Int64 {
        // One round trip: the log row, and the notification carrying its number.
        let rows = try writer.execute(
            #"WITH logged AS (INSERT INTO "Z_CHANGES" ("Z_CLIENT", "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "#
                + #""Z_UPDATED", "Z_DELETED", "Z_LISTS") VALUES ($1, $2, $3, $4, $5::text[], $6::text[], $7::text[], "#
                + #"$8::text[]) RETURNING "Z_TXID") SELECT "Z_TXID", pg_notify($9, "Z_TXID"::text) FROM logged"#,
            [clientID, Self.processName, author, contextName, PostgresSQL.textArray(inserted),
                PostgresSQL.textArray(updated), PostgresSQL.textArray(deleted), PostgresSQL.textArray(lists), channel])
        guard let number = rows.first?[0].flatMap({ $0 }).flatMap({ Int64($0) }) else {
            throw .storeFailed(store: displayName, reason: "Z_CHANGES gave no transaction number")
        }
        return number
    }

    /// The conflict of a row that did not have `expected` as its version.
    private func conflict(_ id: ManagedObjectID, _ entity: EntityDescription, _ expected: Int64)
        throws(ObjectGraphError) -> MergeConflict
    {
        let rows = try writer.execute(#"SELECT "Z_OPT" FROM \#(PostgresSchema.table(entity)) WHERE "Z_PK" = $1"#,
            [id.primaryKey.map(String.init)])
        let version = rows.first?[0].flatMap({ $0 }).flatMap({ Int64($0) }) ?? 0
        return MergeConflict(objectID: id, expectedVersion: expected, storeVersion: version)
    }

    /// Reads these objects' rows from the server into the replica (after a conflict, so that a retry sees them).
    private func refreshReplica(for ids: [ManagedObjectID]) {
        var found: [RowSnapshot] = []
        var byEntity: [String: [Int64]] = [:]
        for id in ids { if let key = id.primaryKey { byEntity[id.entityName, default: []].append(key) } }
        for (name, keys) in byEntity {
            guard let entity = model.entity(named: name), let rows = try? loadRows(of: entity, keys: keys) else { return }
            found += rows
        }
        let present = Set(found.map(\.objectID))
        replicaStorage.apply(rows: found, deleted: ids.filter { !present.contains($0) }, lists: [:])
    }

    /// Refuses to write to a store another client migrated to another model version. Call holding ``lock``.
    func refuseIfMigratedAway() throws(ObjectGraphError) {
        guard migratedAway else { return }
        throw .incompatibleModel(path: displayName, entities: [],
            reason: "another client migrated the store to another model version while it was open; add it again "
                + "with a model of that version")
    }

    /// How `Z_CHANGES` names this process: host and process ID.
    static let processName = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
}

/// The `Z_EXTERNALDATA` changes of one save: values of external-storage attributes from the threshold on go there
/// (their entity column gets NULL), smaller ones replace what an updated object had there, and deleted objects'
/// values go.
struct ExternalWrites {
    private var stored: [(owner: String, attribute: String, data: Data)] = []
    private var cleared: [(owner: String, attribute: String)] = []
    /// The objects whose external values all go.
    var removedOwners: [String] = []

    /// The value to write to the entity column for `value` of `attribute` of `owner`, recording where the value
    /// goes: NULL when it goes to `Z_EXTERNALDATA`. `replacing`: the row existed (its old external value goes).
    mutating func route(_ value: AttributeValue, of attribute: AttributeDescription, owner: String?, threshold: Int,
        replacing: Bool) -> AttributeValue
    {
        guard attribute.allowsExternalBinaryDataStorage, let owner else { return value }
        if case .binary(let data) = value, data.count >= threshold {
            stored.append((owner, attribute.name, data))
            return .null
        }
        if replacing { cleared.append((owner, attribute.name)) }
        return value
    }

    /// Writes the changes on `connection`, in the caller's transaction.
    func write(on connection: PostgresConnection) throws(ObjectGraphError) {
        if !removedOwners.isEmpty {
            try connection.execute(#"DELETE FROM "Z_EXTERNALDATA" WHERE "Z_OWNER" = ANY($1::text[])"#,
                [PostgresSQL.textArray(removedOwners)])
        }
        if !cleared.isEmpty {
            try connection.execute(#"DELETE FROM "Z_EXTERNALDATA" AS e USING unnest($1::text[], $2::text[]) "#
                + #"AS c(owner, attribute) WHERE e."Z_OWNER" = c.owner AND e."Z_ATTRIBUTE" = c.attribute"#,
                [PostgresSQL.textArray(cleared.map(\.owner)), PostgresSQL.textArray(cleared.map(\.attribute))])
        }
        for value in stored {
            try connection.execute(#"INSERT INTO "Z_EXTERNALDATA" ("Z_OWNER", "Z_ATTRIBUTE", "Z_BYTES") VALUES ($1, $2, $3) "#
                + #"ON CONFLICT ("Z_OWNER", "Z_ATTRIBUTE") DO UPDATE SET "Z_BYTES" = EXCLUDED."Z_BYTES""#,
                [value.owner, value.attribute, PostgresValueCoding.encode(.binary(value.data), as: .binary)])
        }
    }
}

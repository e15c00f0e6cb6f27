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
        let request = try readingForeignReferences(request)
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
        try refuseUnstorableText(in: request)
        var replicaChanged = false
        do throws(ObjectGraphError) {
            return try saveInTransaction(request, lists: lists, replicaChanged: &replicaChanged)
        } catch {
            _ = try? writer.execute("ROLLBACK")
            // The replica took the save before the server failed to: it must be read again.
            if replicaChanged { needsReload = true }
            if case .mergeConflicts(let conflicts) = error { refreshReplica(for: conflicts.map(\.objectID)) }
            throw error
        }
    }

    /// The save's statements go in at most four round trips (libpq's pipeline mode), however many objects it
    /// has: `BEGIN`, the writers' lock, where a restore last replaced the contents (`Z_RESTORED`) and the key
    /// reservations; the updates and deletes, whose counts tell
    /// conflicts (only when there are some); the inserts and external values; the relationship lists, the
    /// `Z_CHANGES` row and `COMMIT`. The replica takes the save between the last two.
    private func saveInTransaction(
        _ original: StoreSaveRequest, lists: (source: StoreReplica, keys: Set<String>)?, replicaChanged: inout Bool
    ) throws(ObjectGraphError) -> StoreSaveResult {
        var request = original
        var needingKeys: [String: [Int]] = [:]
        for (index, insert) in request.inserts.enumerated() where insert.permanentID == nil {
            needingKeys[model.rootEntity(of: insert.entity).name, default: []].append(index)
        }
        let roots = needingKeys.sorted(by: { $0.key < $1.key })
        // Writers take turns, so Z_CHANGES numbers follow commit order.
        var opening = [PostgresConnection.Statement("BEGIN"),
            PostgresConnection.Statement("SELECT pg_advisory_xact_lock(7301002)"),
            Self.boundStatement("Z_RESTORED")]
        for (root, indexes) in roots { opening.append(Self.keyReservation(root: root, count: indexes.count)) }
        let opened = try writer.pipeline(opening)
        if let restored = opened.dropFirst(2).first.map({ Self.bound($0.rows) }), restored > lastTransaction {
            // A restore replaced the store's contents after what this client has read: the save was made against
            // rows that may be other objects now. It is refused; the replica reads everything again and reports the
            // difference, as the listener would.
            try writer.execute("ROLLBACK")
            publish(try applyNewCommits(on: writer))
            throw .storeFailed(store: displayName, reason: "a restore replaced the store's contents after what this "
                + "client had read; it has read them again now, so check the changes and save again")
        }
        for ((root, indexes), outcome) in zip(roots, opened.dropFirst(3)) {
            let keys = try keyRange(outcome.rows, root: root, count: indexes.count)
            for (index, key) in zip(indexes, keys) {
                request.inserts[index].permanentID = replicaStorage.objectID(
                    entityName: request.inserts[index].entity.name, primaryKey: key)
            }
        }
        var permanent: [ManagedObjectID: ManagedObjectID] = [:]
        for insert in request.inserts { permanent[insert.temporaryID] = insert.permanentID }
        func reference(_ id: ManagedObjectID?) -> String? { id.flatMap { PostgresReference.string(permanent[$0] ?? $0) } }

        var external = ExternalWrites(store: identifier, opening: clientID, displayName: displayName)
        var checked: [(id: ManagedObjectID, entity: EntityDescription, expected: Int64)] = []
        var writes: [PostgresConnection.Statement] = []
        for update in request.updates {
            guard let key = update.objectID.primaryKey else { continue }
            var parameters: [String?] = []
            var assignments: [String] = []
            let owner = PostgresSchema.externalAttributes(update.entity).isEmpty
                ? nil : PostgresReference.string(update.objectID)
            for (index, attribute) in PostgresSchema.storedAttributes(update.entity) {
                let value = update.values.indices.contains(index) ? update.values[index] : .null
                parameters.append(PostgresValueCoding.encode(
                    external.route(value, of: attribute, owner: owner,
                        threshold: externalThreshold, replacing: true),
                    as: attribute.attributeType))
                assignments.append("\(PostgresSchema.column(attribute)) = $\(parameters.count)")
                // (The folded text goes with the value, in the same statement: the server never has one without
                // the other.)
                if let folded = PostgresSchema.foldedColumn(attribute) {
                    parameters.append(PostgresSchema.foldedText(value))
                    assignments.append("\(folded) = $\(parameters.count)")
                }
            }
            for (index, name) in PostgresSchema.storedToOnes(update.entity) {
                parameters.append(reference(update.toOne.indices.contains(index) ? update.toOne[index] : nil))
                assignments.append("\(PostgresSchema.column(name)) = $\(parameters.count)")
            }
            assignments.append(#""Z_OPT" = "Z_OPT" + 1"#)
            parameters += [String(key), String(update.expectedVersion)]
            writes.append(PostgresConnection.Statement(
                "UPDATE \(PostgresSchema.table(update.entity)) SET \(assignments.joined(separator: ", ")) "
                    + #"WHERE "Z_PK" = $\#(parameters.count - 1) AND "Z_OPT" = $\#(parameters.count)"#, parameters))
            checked.append((update.objectID, update.entity, update.expectedVersion))
        }
        for delete in request.deletes {
            guard let key = delete.objectID.primaryKey else { continue }
            writes.append(PostgresConnection.Statement(
                #"DELETE FROM \#(PostgresSchema.table(delete.entity)) WHERE "Z_PK" = $1 AND "Z_OPT" = $2"#,
                [String(key), String(delete.expectedVersion)]))
            checked.append((delete.objectID, delete.entity, delete.expectedVersion))
        }
        // A row another client changed or deleted since it was read changes nothing: a conflict.
        var conflicts: [MergeConflict] = []
        for (row, outcome) in zip(checked, try writer.pipeline(writes)) where outcome.changed == 0 {
            conflicts.append(try conflict(row.id, row.entity, row.expected))
        }
        if !conflicts.isEmpty { throw .mergeConflicts(conflicts) }
        external.removedOwners = request.deletes.compactMap { PostgresReference.string($0.objectID) }
        let inserts = insertStatements(request.inserts, reference: reference, external: &external)
        let externalStatements = external.statements
        let outcomes = try writer.pipeline(inserts + externalStatements)
        let written = try external.references(from: outcomes.suffix(externalStatements.count))

        // The lists the save changes, as they are before it: only their differences are written.
        let permanentIDs = Dictionary(request.inserts.compactMap { insert in insert.permanentID.map { (insert.temporaryID, $0) } },
            uniquingKeysWith: { first, _ in first })
        var listsBefore: [String: [ManagedObjectID]] = [:]
        for key in replicaStorage.relationshipKeys(touchedBy: request, permanentIDs: permanentIDs) {
            listsBefore[key] = replicaStorage.relationshipList(forKey: key) ?? []
        }
        replicaChanged = true
        // The replica and the saving context hold references to the values Z_EXTERNALDATA took, not their bytes.
        let (replicated, references) = withReferences(written, in: request)
        var result = try replicaStorage.save(replicated)
        result.externalValues = references
        var touched = replicaStorage.relationshipKeys(touchedBy: request, permanentIDs: result.permanentIDs)
        if let lists {
            replicaStorage.apply(rows: [], deleted: [],
                lists: Dictionary(uniqueKeysWithValues: lists.keys.map { ($0, lists.source.relationshipList(forKey: $0)) }))
            touched.formUnion(lists.keys)
        }
        let listKeys = touched.sorted()
        let inserted = request.inserts.compactMap { reference($0.permanentID) }
        let updated = request.updates.compactMap { PostgresReference.string($0.objectID) }
        let deleted = request.deletes.compactMap { PostgresReference.string($0.objectID) }
        let closing = listStatements(listKeys, before: lists == nil ? listsBefore : [:])
            + [logStatement(inserted: inserted, updated: updated, deleted: deleted, lists: listKeys,
                author: request.author, contextName: request.contextName), PostgresConnection.Statement("COMMIT")]
        let closed = try writer.pipeline(closing)
        let logged = closed.count >= 2 ? closed[closed.count - 2].rows : []
        guard let number = logged.first?[0].flatMap({ $0 }).flatMap({ Int64($0) }) else {
            throw .storeFailed(store: displayName, reason: "Z_CHANGES gave no transaction number")
        }
        result.transactionNumber = number
        return result
    }

    /// The `INSERT`s of `inserts`, grouped by entity, at version 1 unless `versions` gives another (a restore keeps
    /// the rows' versions); string attributes' folded text goes with their values
    /// (``PostgresSchema/writtenColumns(_:)``).
    ///
    /// Each statement takes one array per column (`INSERT … SELECT * FROM unnest($1::bigint[], …)`), up to
    /// ``insertChunkRows`` rows or about ``insertChunkBytes`` of values: a multi-row `VALUES` list of one parameter per
    /// value cost the server time for every parameter (each typed, planned and bound on its own), which the
    /// folded-text columns made half as many again; arrays made an import of 1,000 rows per save twice as fast.
    func insertStatements(_ inserts: [StoreSaveRequest.Insert], reference: (ManagedObjectID?) -> String?,
        external: inout ExternalWrites, versions: [ManagedObjectID: Int64] = [:]) -> [PostgresConnection.Statement]
    {
        var statements: [PostgresConnection.Statement] = []
        var byEntity: [String: [StoreSaveRequest.Insert]] = [:]
        for insert in inserts { byEntity[insert.entity.name, default: []].append(insert) }
        for (_, group) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = group.first?.entity else { continue }
            let attributes = PostgresSchema.storedAttributes(entity)
            let toOnes = PostgresSchema.storedToOnes(entity)
            let sql = insertSQL(entity)
            let columnCount = 3 + PostgresSchema.writtenColumns(entity).count
            let entityNumber = String(model.entityNumber(of: entity))
            let hasExternal = !PostgresSchema.externalAttributes(entity).isEmpty
            // Read by position: going over `attributes` copied each attribute's description for every row.
            let types = attributes.map(\.attribute.attributeType)
            let folds = attributes.map { PostgresSchema.foldedColumn($0.attribute) != nil }
            let capacity = min(group.count, Self.insertChunkRows)
            func empty() -> [[String?]] {
                var values = [[String?]](repeating: [], count: columnCount)
                for column in values.indices { values[column].reserveCapacity(capacity) }
                return values
            }
            var values = empty()
            var bytes = 0
            func flush() {
                guard !values[0].isEmpty else { return }
                statements.append(PostgresConnection.Statement(sql, values.map { PostgresSQL.textArray(nullable: $0) }))
                values = empty()
                bytes = 0
            }
            for insert in group {
                guard let key = insert.permanentID?.primaryKey else { continue }
                let version = versions.isEmpty ? "1" : String(insert.permanentID.flatMap { versions[$0] } ?? 1)
                values[0].append(String(key))
                values[1].append(entityNumber)
                values[2].append(version)
                var column = 3
                let owner = hasExternal ? reference(insert.permanentID) : nil
                for slot in attributes.indices {
                    let index = attributes[slot].index
                    let value = insert.values.indices.contains(index) ? insert.values[index] : .null
                    let encoded = hasExternal
                        ? PostgresValueCoding.encode(
                            external.route(value, of: attributes[slot].attribute, owner: owner,
                                threshold: externalThreshold, replacing: false),
                            as: types[slot])
                        : PostgresValueCoding.encode(value, as: types[slot])
                    bytes += encoded?.utf8.count ?? 0
                    values[column].append(encoded)
                    column += 1
                    // (A string attribute's folded text follows its value: see `writtenColumns`.)
                    if folds[slot] {
                        values[column].append(PostgresSchema.foldedText(value))
                        column += 1
                    }
                }
                for (index, _) in toOnes {
                    values[column].append(reference(insert.toOne.indices.contains(index) ? insert.toOne[index] : nil))
                    column += 1
                }
                if values[0].count >= Self.insertChunkRows || bytes >= Self.insertChunkBytes { flush() }
            }
            flush()
        }
        return statements
    }

    /// The `INSERT` of rows of the concrete `entity` from one array per column: `Z_PK`, `Z_ENT`, `Z_OPT`, then
    /// ``PostgresSchema/writtenColumns(_:)``.
    private func insertSQL(_ entity: EntityDescription) -> String {
        let columns = [#""Z_PK""#, #""Z_ENT""#, #""Z_OPT""#] + PostgresSchema.writtenColumns(entity)
        var types = ["bigint", "integer", "bigint"]
        for (_, attribute) in PostgresSchema.storedAttributes(entity) {
            types.append(PostgresValueCoding.baseType(attribute.attributeType))
            if PostgresSchema.foldedColumn(attribute) != nil { types.append("text") }
        }
        types += PostgresSchema.storedToOnes(entity).map { _ in "text" }
        return "INSERT INTO \(PostgresSchema.table(entity)) (\(columns.joined(separator: ", "))) SELECT * FROM unnest("
            + types.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ") + ")"
    }

    /// How many rows one `INSERT` of ``insertStatements(_:reference:external:versions:)`` takes at most.
    static let insertChunkRows = 10_000
    /// About how many bytes of attribute values one such `INSERT` takes at most (the row that crosses it is its
    /// last), so that a statement stays far below the server's 1 GB limit whatever the values.
    static let insertChunkBytes = 32 << 20

    /// The statements that bring the relationship lists `keys` to what the replica now holds: for a list whose members
    /// before the save are in `before`, the members it lost are deleted and those it gained appended after its last
    /// position (so the server keeps the order the replica has: the others' order, newcomers at the end); every
    /// other list (orders of ordered relationships, lists the caller took over whole) is written again whole.
    ///
    /// A save of a thousand people who each join one of a few tags writes a thousand rows, not every tag's whole
    /// list again (which made imports slower with every save, and every client read the whole lists back).
    private func listStatements(_ keys: [String], before: [String: [ManagedObjectID]]) -> [PostgresConnection.Statement] {
        guard !keys.isEmpty else { return [] }
        var rewritten: [String] = []
        var removedKeys: [String] = [], removedMembers: [String] = []
        var addedKeys: [String] = [], addedOrdinals: [Int64] = [], addedMembers: [String] = []
        for key in keys {
            let members = replicaStorage.relationshipList(forKey: key) ?? []
            var added = members[...]
            if let old = before[key], !key.hasSuffix("#order") {
                let now = Set(members), then = Set(old)
                for member in old where !now.contains(member) {
                    guard let reference = PostgresReference.string(member) else { continue }
                    removedKeys.append(key)
                    removedMembers.append(reference)
                }
                // (The replica keeps the members it had in their order and appends newcomers.)
                added = members.drop { then.contains($0) }
                let kept = members[..<added.startIndex]
                if added.contains(where: then.contains) || !kept.elementsEqual(old.lazy.filter(now.contains)) {
                    rewritten.append(key)
                    added = members[...]
                }
            } else {
                rewritten.append(key)
            }
            var ordinal: Int64 = 0
            for member in added {
                guard let reference = PostgresReference.string(member) else { continue }
                ordinal += 1
                addedKeys.append(key)
                addedOrdinals.append(ordinal)
                addedMembers.append(reference)
            }
        }
        var statements: [PostgresConnection.Statement] = []
        if !rewritten.isEmpty {
            statements.append(PostgresConnection.Statement(
                #"DELETE FROM "Z_RELATIONSHIPLISTS" WHERE "Z_KEY" = ANY($1::text[])"#, [PostgresSQL.textArray(rewritten)]))
        }
        if !removedKeys.isEmpty {
            statements.append(PostgresConnection.Statement(
                #"DELETE FROM "Z_RELATIONSHIPLISTS" AS l USING unnest($1::text[], $2::text[]) AS r(k, m) "#
                    + #"WHERE l."Z_KEY" = r.k AND l."Z_MEMBER" = r.m"#,
                [PostgresSQL.textArray(removedKeys), PostgresSQL.textArray(removedMembers)]))
        }
        if !addedKeys.isEmpty {
            // After each list's last position (0 for a list rewritten or new).
            statements.append(PostgresConnection.Statement(
                #"INSERT INTO "Z_RELATIONSHIPLISTS" ("Z_KEY", "Z_POSITION", "Z_MEMBER") "#
                    + #"SELECT a.k, coalesce(last.p, 0) + a.n, a.m FROM unnest($1::text[], $2::int[], $3::text[]) AS a(k, n, m) "#
                    + #"LEFT JOIN (SELECT "Z_KEY", max("Z_POSITION") AS p FROM "Z_RELATIONSHIPLISTS" "#
                    + #"WHERE "Z_KEY" = ANY($1::text[]) GROUP BY "Z_KEY") AS last ON last."Z_KEY" = a.k"#,
                [PostgresSQL.textArray(addedKeys), PostgresSQL.integerArray(addedOrdinals),
                    PostgresSQL.textArray(addedMembers)]))
        }
        return statements
    }

    /// The statement that records the transaction in `Z_CHANGES` and notifies the store's channel (delivered at
    /// commit) with its number, which it returns.
    private func logStatement(
        inserted: [String], updated: [String], deleted: [String], lists: [String], author: String?, contextName: String?
    ) -> PostgresConnection.Statement {
        PostgresConnection.Statement(
            #"WITH logged AS (INSERT INTO "Z_CHANGES" ("Z_CLIENT", "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "#
                + #""Z_UPDATED", "Z_DELETED", "Z_LISTS") VALUES ($1, $2, $3, $4, $5::text[], $6::text[], $7::text[], "#
                + #"$8::text[]) RETURNING "Z_TXID") SELECT "Z_TXID", pg_notify($9, "Z_TXID"::text) FROM logged"#,
            [clientID, Self.processName, author, contextName, PostgresSQL.textArray(inserted),
                PostgresSQL.textArray(updated), PostgresSQL.textArray(deleted), PostgresSQL.textArray(lists), channel])
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

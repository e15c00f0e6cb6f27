import SQLiteStorage

extension SQLiteStore {
    /// Runs a batch operation in one `BEGIN IMMEDIATE` transaction on the writer connection: inserts take
    /// their keys from `Z_PRIMARYKEY` (moving `Z_MAX` past them), updates and deletes find their rows with
    /// the compiled predicate and bump `Z_OPT` of every row they change, deletes apply their delete rules
    /// in SQL (see ``BatchDeletePlanner``). Any failure rolls everything back. External files follow the rows
    /// as in a save: new ones are written before the commit, those of replaced or deleted values removed after it.
    func execute(_ operation: StoreBatchOperation, label: TransactionLabel) throws(ObjectGraphError) -> StoreBatchOutcome {
        guard !isReadOnly else { throw .readOnlyStore(store: path) }
        return try withWriter { connection throws(ObjectGraphError) in
            try withExternalDataChanges { changes throws(ObjectGraphError) in
                var recorded: Int64?
                do throws(ObjectGraphError) {
                    return try sqlite { try batchTransaction(operation, label, connection, changes, &recorded) }
                } catch {
                    forgetUncommitted(recorded)
                    throw error
                }
            }
        }
    }

    private func batchTransaction(
        _ operation: StoreBatchOperation, _ label: TransactionLabel, _ connection: SQLiteConnection, _ changes: ExternalDataChanges,
        _ recorded: inout Int64?
    ) throws -> StoreBatchOutcome {
        try connection.transaction(.immediate) {
            var outcome: StoreBatchOutcome
            var tombstones: [ManagedObjectID: [SQLiteValue]] = [:]
            switch operation {
            case .insert(let entity, let nextRow):
                outcome = try batchInsert(entity, nextRow, connection, changes)
            case .update(let entity, let predicate, let includesSubentities, let values):
                outcome = try batchUpdate(entity, predicate, includesSubentities, values, connection, changes)
            case .delete(let entity, let predicate, let objectIDs, let includesSubentities):
                let ids = try matchingIDs(entity, predicate, objectIDs, includesSubentities, connection)
                let planner = BatchDeletePlanner(model: model, storeIdentifier: identifier,
                    entityName: entity.name)
                let plan = try planner.plan(deleting: ids,
                    in: SQLiteBatchGraph(store: self, connection: connection))
                tombstones = recordsHistory ? try self.tombstones(ofDeleted: plan.deleted, connection) : [:]
                try apply(plan, connection, changes)
                outcome = StoreBatchOutcome(updated: plan.updated, deleted: plan.deleted)
            }
            if recordsHistory {
                var changed: IndexBits?
                if case .update(_, _, _, let values) = operation { changed = IndexBits(values.map(\.attributeIndex)) }
                var record = historyRecord(of: outcome, changedAttributes: changed, tombstones: tombstones)
                record.author = label.author
                record.contextName = label.contextName
                outcome.transactionNumber = try writeHistory(record, connection)
                recorded = outcome.transactionNumber
            }
            try changes.prepareCommit(externalStorage)
            return outcome
        }
    }

    private func batchInsert(
        _ entity: EntityDescription, _ nextRow: () throws(ObjectGraphError) -> [AttributeValue]?,
        _ connection: SQLiteConnection, _ changes: ExternalDataChanges
    ) throws -> StoreBatchOutcome {
        let layout = try layout(of: entity)
        let rootNumber = Int64(model.entityNumber(of: model.rootEntity(of: entity)))
        guard case .integer(var key)? = try connection.scalar(
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(rootNumber)])
        else {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "Z_PRIMARYKEY has no row for \(entity.name)")
        }
        var outcome = StoreBatchOutcome()
        while let row = try nextRow() {
            key += 1
            let values = try encodedForInsert(row, layout, changes)
            let statement = try connection.cachedStatement(layout.insertSQL)
            try statement.bind(int64: key, at: 1)
            try statement.bind(int64: Int64(layout.entityNumber), at: 2)
            try statement.bind(int64: 1, at: 3)
            var index: Int32 = 4
            for column in layout.columns {
    try statement.bind(values[column.attributeIndex].sqliteValue, at: index)
    index += 1
            }
            _ = try bindForeignKeys([], layout: layout, statement: statement, from: index, permanentIDs: [:])
            _ = try statement.step()
            outcome.inserted.append(idNamespaces.id(entityName: entity.name, key: key))
        }
        try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            .run([.integer(key), .integer(rootNumber)])
        return outcome
    }

    private func batchUpdate(
        _ entity: EntityDescription, _ predicate: FetchPredicate?, _ includesSubentities: Bool,
        _ values: [(attributeIndex: Int, value: AttributeValue)], _ connection: SQLiteConnection,
        _ changes: ExternalDataChanges
    ) throws -> StoreBatchOutcome {
        let layout = try layout(of: entity)
        let ids = try matchingIDs(entity, predicate, nil, includesSubentities, connection)
        guard !ids.isEmpty else { return StoreBatchOutcome() }
        if layout.externalStorage != nil,
            values.contains(where: { layout.entity.externalBinaryAttributeIndexes.contains($0.attributeIndex) })
        {
            // Each row gets a file of its own: row by row.
            try batchUpdateExternal(ids, values, layout, connection, changes)
            return StoreBatchOutcome(updated: ids)
        }
        var assignments = ["Z_OPT = Z_OPT + 1"]
        for (attributeIndex, _) in values {
            guard let column = layout.columns.first(where: { $0.attributeIndex == attributeIndex }) else {
    throw ObjectGraphError.unknownKey(entity: entity.name, key: entity.attributes[attributeIndex].name)
            }
            assignments.append("\(column.name) = ?")
        }
        let (clause, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        // The same WHERE as the SELECT, in the same transaction: the same rows.
        try connection.prepare("UPDATE \(layout.tableName) AS \(Self.rowAlias) SET "
            + assignments.joined(separator: ", ") + clause)
            .run(values.map(\.value.sqliteValue) + bindings.map(\.sqliteValue))
        return StoreBatchOutcome(updated: ids)
    }

    /// The IDs (named by their concrete entity) of the rows a predicate or a list of IDs picks.
    private func matchingIDs(
        _ entity: EntityDescription, _ predicate: FetchPredicate?, _ objectIDs: [ManagedObjectID]?,
        _ includesSubentities: Bool, _ connection: SQLiteConnection
    ) throws -> [ManagedObjectID] {
        let layout = try layout(of: entity)
        var result: [ManagedObjectID] = []
        func collect(_ statement: SQLiteStatement) throws {
            while try statement.step() {
                let name = self.layout(forEntityNumber: Int(statement.int64(at: 1)))?.entity.name ?? entity.name
                result.append(idNamespaces.id(entityName: name, key: statement.int64(at: 0)))
            }
        }
        if let objectIDs {
            let numbers = layout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
            let keys = objectIDs.filter { $0.storeIdentifier == identifier }.compactMap(\.primaryKey)
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let statement = try connection.prepare("SELECT Z_PK, Z_ENT FROM \(layout.tableName) WHERE Z_PK IN ("
                    + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ") AND Z_ENT IN (\(numbers))")
                try statement.bind(chunk.map { .integer($0) })
                try collect(statement)
            }
            return result
        }
        let (clause, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        let statement = try connection.prepare(
            "SELECT \(Self.rowAlias).Z_PK, \(Self.rowAlias).Z_ENT FROM \(layout.tableName) \(Self.rowAlias)" + clause
                + " ORDER BY \(Self.rowAlias).Z_PK")
        try statement.bind(bindings.map(\.sqliteValue))
        try collect(statement)
        return result
    }

    /// Writes a delete plan: clears the to-one keys that pointed at deleted rows, bumps the versions of the
    /// objects whose relationships changed, removes the deleted rows' join-table rows, then the rows (500
    /// keys per statement).
    private func apply(_ plan: BatchDeletePlan, _ connection: SQLiteConnection, _ changes: ExternalDataChanges) throws {
        for (id, relationshipIndex) in plan.clearedToOne {
            guard let entity = model.entity(named: id.entityName), let key = id.primaryKey else { continue }
            let layout = try layout(of: entity)
            guard let foreignKey = layout.foreignKeys.first(where: { $0.relationshipIndex == relationshipIndex }) else {
                continue
            }
            let cleared = [foreignKey.name] + [foreignKey.entityColumn?.name, foreignKey.orderColumn].compactMap { $0 }
            try connection.cachedStatement("UPDATE \(layout.tableName) SET "
                + cleared.map { "\($0) = NULL" }.joined(separator: ", ") + " WHERE Z_PK = ?")
                .run([.integer(key)])
        }
        try forEachChunk(of: plan.updated, connection) { layout, _, marks, keys in
            try connection.prepare("UPDATE \(layout.tableName) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(marks))").run(keys)
        }
        try forEachChunk(of: plan.deleted, connection) { layout, entity, marks, keys in
            try noteFilesOfDeletedRows(keys.compactMap { if case .integer(let key) = $0 { key } else { nil } }, layout,
                connection, changes)
            for index in entity.relationships.indices {
                guard let table = joinTable(of: entity, relationshipIndex: index) else { continue }
                try connection.prepare("DELETE FROM \(table.name) WHERE \(table.ownColumn) IN (\(marks))").run(keys)
            }
            try connection.prepare("DELETE FROM \(layout.tableName) WHERE Z_PK IN (\(marks))").run(keys)
        }
    }

    /// Calls `body` for `ids` grouped by entity, 500 keys at a time, with the entity's layout, its
    /// placeholders (`?, ?, …`) and the keys to bind.
    private func forEachChunk(
        of ids: [ManagedObjectID], _ connection: SQLiteConnection,
        _ body: (TableLayout, EntityDescription, String, [SQLiteValue]) throws -> Void
    ) throws {
        var byEntity: [String: [Int64]] = [:]
        for id in ids { if let key = id.primaryKey { byEntity[id.entityName, default: []].append(key) } }
        for (name, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: name) else { continue }
            let layout = try layout(of: entity)
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                try body(layout, entity, Array(repeating: "?", count: chunk.count).joined(separator: ", "),
                    chunk.map { .integer($0) })
            }
        }
    }
}

/// An SQLite store's relationships read on the writer connection, inside a batch delete's transaction.
private struct SQLiteBatchGraph: BatchDeleteGraph {
    let store: SQLiteStore
    let connection: SQLiteConnection

    func toOneDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: ManagedObjectID]
    {
        let layout = try store.layout(of: entity)
        guard let foreignKey = layout.foreignKeys.first(where: { $0.relationshipIndex == index }) else { return [:] }
        let destination = entity.relationships[index].destinationEntityName
        let select = "SELECT Z_PK, \(foreignKey.name), \(foreignKey.entityColumn?.name ?? "NULL") FROM "
            + "\(layout.tableName) WHERE \(foreignKey.name) IS NOT NULL AND Z_PK IN "
        var result: [ManagedObjectID: ManagedObjectID] = [:]
        try query(select, ids) { statement, owners in
            guard let owner = owners[statement.int64(at: 0)] else { return }
            let name = statement.isNull(at: 2) ? destination
                : store.layout(forEntityNumber: Int(statement.int64(at: 2)))?.entity.name ?? destination
            result[owner] = store.idNamespaces.id(entityName: name, key: statement.int64(at: 1))
        }
        return result
    }

    func toManyDestinations(of ids: [ManagedObjectID], entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        let relationship = entity.relationships[index]
        guard let destination = store.model.entity(named: relationship.destinationEntityName) else {
            throw .unknownEntity(relationship.destinationEntityName)
        }
        let destinationLayout = try store.layout(of: destination)
        let select: String
        if let table = store.joinTable(of: entity, relationshipIndex: index) {
            select = "SELECT j.\(table.ownColumn), d.Z_PK, d.Z_ENT FROM \(table.name) j JOIN "
                + "\(destinationLayout.tableName) d ON d.Z_PK = j.\(table.otherColumn) WHERE j.\(table.ownColumn) IN "
        } else if let inverseName = relationship.inverseName,
            let foreignKey = destinationLayout.foreignKeys.first(where: {
                destination.relationships[$0.relationshipIndex].name == inverseName
            })
        {
            let numbers = destinationLayout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
            select = "SELECT \(foreignKey.name), Z_PK, Z_ENT FROM \(destinationLayout.tableName) "
                + "WHERE Z_ENT IN (\(numbers)) AND \(foreignKey.name) IN "
        } else {
            return [:]
        }
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        try query(select, ids) { statement, owners in
            guard let owner = owners[statement.int64(at: 0)] else { return }
            let name = store.layout(forEntityNumber: Int(statement.int64(at: 2)))?.entity.name ?? destination.name
            result[owner, default: []].append(store.idNamespaces.id(entityName: name, key: statement.int64(at: 1)))
        }
        return result
    }

    /// Runs `select` + `(?, ?, …)` for the keys of `ids`, 500 at a time, handing each row and the owners by key.
    private func query(
        _ select: String, _ ids: [ManagedObjectID], _ row: (SQLiteStatement, [Int64: ManagedObjectID]) -> Void
    ) throws(ObjectGraphError) {
        let owners = Dictionary(ids.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
        let keys = owners.keys.sorted()
        try store.sqlite {
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let statement = try connection.prepare(
                    select + "(" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")")
                try statement.bind(chunk.map { .integer($0) })
                while try statement.step() { row(statement, owners) }
            }
        }
    }
}

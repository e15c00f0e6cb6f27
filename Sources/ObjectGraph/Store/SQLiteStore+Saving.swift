import SQLiteStorage

extension SQLiteStore {
    /// Applies a save in one `BEGIN IMMEDIATE` transaction: primary keys are taken from `Z_PRIMARYKEY`,
    /// rows inserted with version 1, updated and deleted only when their version is the one the context
    /// read (optimistic locking). Any failure rolls everything back.
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        let storeIdentifier = identifier
        return try withWriter { connection throws(ObjectGraphError) in
            do {
                return try connection.transaction(.immediate) {
                    var result = StoreSaveResult()
                    try insertRows(request.inserts, connection, storeIdentifier, &result)
                    let permanentIDs = result.permanentIDs
                    var conflicts: [MergeConflict] = []
                    for update in request.updates {
                        let layout = try layout(of: update.entity)
                        guard let key = update.objectID.primaryKey else { continue }
                        let statement = try connection.cachedStatement(layout.updateSQL)
                        var index: Int32 = 1
                        for column in layout.columns {
                            try statement.bind(update.values[column.attributeIndex].sqliteValue, at: index)
                            index += 1
                        }
                        index = try bindForeignKeys(update.toOne, layout: layout, statement: statement, from: index,
                            permanentIDs: permanentIDs)
                        try statement.bind(.integer(key), at: index)
                        try statement.bind(.integer(update.expectedVersion), at: index + 1)
                        _ = try statement.step()
                        if connection.changes == 1 {
                            result.versions[update.objectID] = update.expectedVersion + 1
                        } else {
                            conflicts.append(try conflict(update.objectID, update.expectedVersion, layout, connection))
                        }
                    }
                    for delete in request.deletes {
                        let layout = try layout(of: delete.entity)
                        guard let key = delete.objectID.primaryKey else { continue }
                        try connection.cachedStatement(layout.deleteSQL)
                            .run([.integer(key), .integer(delete.expectedVersion)])
                        if connection.changes != 1 {
                            conflicts.append(try conflict(delete.objectID, delete.expectedVersion, layout, connection))
                        }
                    }
                    if !conflicts.isEmpty { throw ObjectGraphError.mergeConflicts(conflicts) }
                    try applyJoinChanges(request, connection, permanentIDs: permanentIDs)
                    return result
                }
            } catch let error as ObjectGraphError {
                throw error
            } catch let error as SQLiteError {
                throw .sqlite(error)
            } catch {
                throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error)", path: path))
            }
        }
    }

    private func insertRows(
        _ inserts: [StoreSaveRequest.Insert], _ connection: SQLiteConnection, _ storeIdentifier: String,
        _ result: inout StoreSaveResult
    ) throws {
        guard !inserts.isEmpty else { return }
        // Primary keys come from the root entity's row: a hierarchy shares one key space.
        var firstKey: [String: Int64] = [:]
        var counts: [String: Int64] = [:]
        for insert in inserts { counts[model.rootEntity(of: insert.entity).name, default: 0] += 1 }
        for (name, count) in counts {
            guard let entity = model.entity(named: name) else { continue }
            let number = Int64(model.entityNumber(of: entity))
            try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?")
                .run([.integer(count), .integer(number)])
            guard case .integer(let maximum)? = try connection.scalar(
                "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)])
            else {
                throw ObjectGraphError.incompatibleStore(path: path, reason: "Z_PRIMARYKEY has no row for \(name)")
            }
            firstKey[name] = maximum - count + 1
        }
        // Every inserted object gets its key first, so rows can point at objects inserted by the same save.
        var keys: [Int64] = []
        for insert in inserts {
            let root = model.rootEntity(of: insert.entity).name
            let key = firstKey[root, default: 1]
            firstKey[root] = key + 1
            keys.append(key)
            result.permanentIDs[insert.temporaryID] = ManagedObjectID(
                entityName: insert.entity.name, storeIdentifier: storeIdentifier, primaryKey: key)
        }
        for (insert, key) in zip(inserts, keys) {
            let layout = try layout(of: insert.entity)
            let statement = try connection.cachedStatement(layout.insertSQL)
            try statement.bind(int64: key, at: 1)
            try statement.bind(int64: Int64(layout.entityNumber), at: 2)
            try statement.bind(int64: 1, at: 3)
            var index: Int32 = 4
            for column in layout.columns {
                try statement.bind(insert.values[column.attributeIndex].sqliteValue, at: index)
                index += 1
            }
            _ = try bindForeignKeys(insert.toOne, layout: layout, statement: statement, from: index,
                permanentIDs: result.permanentIDs)
            _ = try statement.step()
            let id = ManagedObjectID(entityName: insert.entity.name, storeIdentifier: storeIdentifier, primaryKey: key)
            result.versions[id] = 1
        }
    }

    private func conflict(
        _ id: ManagedObjectID, _ expected: Int64, _ layout: TableLayout, _ connection: SQLiteConnection
    ) throws -> MergeConflict {
        let current = try connection.scalar(
            "SELECT Z_OPT FROM \(layout.tableName) WHERE Z_PK = ?", [.integer(id.primaryKey ?? 0)])
        var storeVersion: Int64 = 0
        if case .integer(let version)? = current { storeVersion = version }
        return MergeConflict(objectID: id, expectedVersion: expected, storeVersion: storeVersion)
    }
}

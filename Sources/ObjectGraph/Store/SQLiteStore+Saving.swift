import Foundation
import SQLiteStorage

extension SQLiteStore {
    /// Applies a save in one `BEGIN IMMEDIATE` transaction: primary keys are taken from `Z_PRIMARYKEY`
    /// (or from inserts that carry a permanent ID obtained ahead of the save), rows inserted with version 1,
    /// updated and deleted only when their version is the one the context read (optimistic locking). Any
    /// failure rolls everything back; a read-only store refuses before touching the file. Large values of
    /// external-storage attributes go to files written before the commit (see `SQLiteStore+ExternalData`).
    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        guard !isReadOnly else { throw .readOnlyStore(store: path) }
        return try withWriter { connection throws(ObjectGraphError) in
            try withExternalDataChanges { changes throws(ObjectGraphError) in
                var recorded: Int64?
                do {
                    return try connection.transaction(.immediate) {
                        var result = StoreSaveResult()
                        try insertRows(request.inserts, connection, changes, &result)
                        let permanentIDs = result.permanentIDs
                        var conflicts: [MergeConflict] = []
                        for update in request.updates {
                            let layout = try layout(of: update.entity)
                            guard let key = update.objectID.primaryKey else { continue }
                            let values = try encodedForUpdate(update.values, key: key, version: update.expectedVersion,
                                layout, connection, changes)
                            result.noteExternalValues(values, of: update.objectID, layout)
                            let statement = try connection.cachedStatement(layout.updateSQL)
                            var index: Int32 = 1
                            for column in layout.updatedColumns {
                                try statement.bind(values[column.attributeIndex].sqliteValue, at: index)
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
                        let tombstones = recordsHistory ? try tombstones(of: request.deletes, connection) : [:]
                        for delete in request.deletes {
                            let layout = try layout(of: delete.entity)
                            guard let key = delete.objectID.primaryKey else { continue }
                            try noteFilesOfDeletedRows([key], layout, connection, changes)
                            try connection.cachedStatement(layout.deleteSQL)
                                .run([.integer(key), .integer(delete.expectedVersion)])
                            if connection.changes != 1 {
                                conflicts.append(try conflict(delete.objectID, delete.expectedVersion, layout, connection))
                            }
                        }
                        if !conflicts.isEmpty { throw ObjectGraphError.mergeConflicts(conflicts) }
                        try applyJoinChanges(request, connection, permanentIDs: permanentIDs)
                        if recordsHistory {
                            result.transactionNumber = try writeHistory(
                                historyRecord(of: request, result: result, tombstones: tombstones), connection)
                            recorded = result.transactionNumber
                        }
                        try changes.prepareCommit(externalStorage)
                        return result
                    }
                } catch let error as ObjectGraphError {
                    forgetUncommitted(recorded)
                    throw error
                } catch let error as SQLiteError {
                    forgetUncommitted(recorded)
                    throw .sqlite(error)
                } catch {
                    forgetUncommitted(recorded)
                    throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error)", path: path))
                }
            }
        }
    }

    private func insertRows(
        _ inserts: [StoreSaveRequest.Insert], _ connection: SQLiteConnection,
        _ changes: ExternalDataChanges, _ result: inout StoreSaveResult
    ) throws {
        guard !inserts.isEmpty else { return }
        // Inserts come in runs of one entity: what is looked up by entity name (its root, layout, statement) is
        // looked up once per run, not per row — each lookup hashes the name.
        // Primary keys come from the root entity's row: a hierarchy shares one key space. Inserts that carry
        // a permanent ID obtained ahead of the save already have theirs (Z_MAX was bumped then).
        var counts: [String: Int64] = [:]
        var runEntity: EntityDescription?
        var runRoot = ""
        var runCount: Int64 = 0
        for insert in inserts where insert.permanentID == nil {
            if insert.entity !== runEntity {
                if runCount > 0 { counts[runRoot, default: 0] += runCount }
                runEntity = insert.entity
                runRoot = model.rootEntity(of: insert.entity).name
                runCount = 0
            }
            runCount += 1
        }
        if runCount > 0 { counts[runRoot, default: 0] += runCount }
        var firstKey: [String: Int64] = [:]
        for (name, count) in counts {
            guard let entity = model.entity(named: name) else { continue }
            firstKey[name] = try reserveKeys(for: entity, count: count, connection).lowerBound
        }
        // Every inserted object gets its key first, so rows can point at objects inserted by the same save.
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(inserts.count)
        var namespaceRun: (entity: EntityDescription, namespace: ObjectIDNamespace)?
        result.permanentIDs.reserveCapacity(result.permanentIDs.count + inserts.count)
        runEntity = nil
        var runNext: Int64 = 0
        for insert in inserts {
            let key: Int64
            if let preassigned = insert.permanentID?.primaryKey {
                key = preassigned
            } else {
                if insert.entity !== runEntity {
                    if runEntity != nil { firstKey[runRoot] = runNext }
                    runEntity = insert.entity
                    runRoot = model.rootEntity(of: insert.entity).name
                    runNext = firstKey[runRoot, default: 1]
                }
                key = runNext
                runNext = key + 1
            }
            let namespace: ObjectIDNamespace
            if let run = namespaceRun, run.entity === insert.entity {
                namespace = run.namespace
            } else {
                namespace = idNamespaces.namespace(entityName: insert.entity.name)
                namespaceRun = (insert.entity, namespace)
            }
            let id = ManagedObjectID(namespace: namespace, key: key)
            ids.append(id)
            result.permanentIDs[insert.temporaryID] = id
        }
        // One statement per entity for the whole save: looking it up by its SQL text would hash that per row.
        var statements: [String: SQLiteStatement] = [:]
        result.versions.reserveCapacity(result.versions.count + inserts.count)
        runEntity = nil
        var runLayout: TableLayout?
        var runStatement: SQLiteStatement?
        for (insert, id) in zip(inserts, ids) {
            let layout: TableLayout
            let statement: SQLiteStatement
            if insert.entity === runEntity, let runLayout, let runStatement {
                layout = runLayout
                statement = runStatement
            } else {
                layout = try self.layout(of: insert.entity)
                if let reused = statements[insert.entity.name] {
                    statement = reused
                } else {
                    statement = try connection.cachedStatement(layout.insertSQL)
                    statements[insert.entity.name] = statement
                }
                runEntity = insert.entity
                runLayout = layout
                runStatement = statement
            }
            let values = try encodedForInsert(insert.values, layout, changes)
            result.noteExternalValues(values, of: id, layout)
            // Every parameter is bound below; text goes through the statement's scratch space (no copy by SQLite).
            statement.reset()
            statement.prepareForScratchBinding()
            try statement.bind(int64: id.key, at: 1)
            try statement.bind(int64: Int64(layout.entityNumber), at: 2)
            try statement.bind(int64: 1, at: 3)
            var index: Int32 = 4
            for column in layout.columns {
                try statement.bind(values[column.attributeIndex].sqliteValue, inScratchAt: index)
                index += 1
            }
            _ = try bindForeignKeys(insert.toOne, layout: layout, statement: statement, from: index,
                permanentIDs: result.permanentIDs)
            do {
                _ = try statement.step()
            } catch {
                // (A `catch where` clause here sends swift-frontend 6.3 into an endless SIL pass.)
                if error.extendedCode == SQLiteError.constraintPrimaryKey { throw ObjectGraphError.duplicateObjectID(id) }
                throw error
            }
            result.versions[id] = 1
        }
    }

    /// Bumps `Z_MAX` of the root of `entity` by `count` (inside the caller's write transaction) and returns
    /// the keys it reserved.
    private func reserveKeys(for entity: EntityDescription, count: Int64, _ connection: SQLiteConnection) throws
        -> Range<Int64>
    {
        let root = model.rootEntity(of: entity)
        let number = Int64(model.entityNumber(of: root))
        try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?")
            .run([.integer(count), .integer(number)])
        guard case .integer(let maximum)? = try connection.scalar(
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)])
        else {
            throw ObjectGraphError.incompatibleStore(path: path, reason: "Z_PRIMARYKEY has no row for \(root.name)")
        }
        return (maximum - count + 1)..<(maximum + 1)
    }

    /// Reserves `count` primary keys for `entity`'s hierarchy in one `BEGIN IMMEDIATE` transaction, as Core
    /// Data does when it hands out permanent IDs before a save: `Z_MAX` moves past them for good, so no
    /// other save (in this process or another) can take them, and unused ones are simply skipped.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        guard !isReadOnly else { throw .readOnlyStore(store: path) }
        guard count > 0 else { return 0..<0 }
        return try withWriter { connection throws(ObjectGraphError) in
            try sqlite {
                try connection.transaction(.immediate) { try reserveKeys(for: entity, count: Int64(count), connection) }
            }
        }
    }

    /// Rewrites `Z_METADATA`'s property list (the UUID stays in `Z_UUID`) in one transaction.
    func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError) {
        guard !isReadOnly else { throw .readOnlyStore(store: path) }
        try withWriter { connection throws(ObjectGraphError) in
            try sqlite {
                if isForeignStore {
                    // Core Data's keys stay as the store has them; only the app's keys change.
                    try connection.transaction(.immediate) {
                        guard case .blob(let bytes)? = try connection.scalar(
                            "SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
                        else { throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "it has no Z_METADATA row") }
                        guard let plist = try ForeignStoreMetadata.merged(Data(bytes), userInfo: metadata.userInfo,
                            path: path)
                        else { return }
                        try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1")
                            .run([.blob([UInt8](plist))])
                    }
                    return
                }
                let plist = try metadata.propertyList()
                try connection.transaction(.immediate) {
                    try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1")
                        .run([.blob([UInt8](plist))])
                }
            }
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

import Foundation
import SQLiteStorage

/// One transaction's history as a store records it, built inside the transaction that makes the changes.
struct HistoryRecord {
    /// One object's change.
    struct Change {
        let entityNumber: Int64
        let primaryKey: Int64
        let type: PersistentHistoryChange.ChangeType
        /// Updates: the changed properties' bit vector (see ``SQLiteHistoryTables``); nil when not known.
        var columns: [UInt8]? = nil
        /// Deletes: the preserved attributes' values, in the entity's order of such attributes.
        var tombstone: [SQLiteValue] = []
    }

    var author: String?
    var contextName: String?
    var changes: [Change] = []
}

/// Who committed, as every history transaction of this process records it.
enum HistoryProcess {
    /// This process's ID, in decimal.
    static let processID = String(ProcessInfo.processInfo.processIdentifier)
    /// This program's name (Linux programs have no bundle identifier).
    static let bundleID = ProcessInfo.processInfo.processName
}

extension SQLiteStore {
    /// Creates the history tables when `wanted` and missing (or tombstone columns the model now needs), and
    /// tells whether the store records history: wanted, or the file already has the tables.
    func prepareHistory(_ connection: SQLiteConnection, wanted: Bool) throws(ObjectGraphError) -> Bool {
        try sqlite {
            let exists = try SQLiteHistoryTables.exist(connection)
            guard wanted || exists else { return false }
            guard !isReadOnly else { return exists }
            let tombstones = model.entities.map { Self.preservedAttributeIndexes(of: $0).count }.max() ?? 0
            let present = exists ? try SQLiteHistoryTables.tombstoneColumnCount(connection) : 0
            // A store Core Data wrote keeps its history tables as they are (no column is added to them).
            if !exists || (present < tombstones && !isForeignStore) {
                try connection.transaction(.immediate) {
                    try SQLiteHistoryTables.create(connection, tombstoneColumns: tombstones)
                }
            }
            historyTombstoneColumns = try SQLiteHistoryTables.tombstoneColumnCount(connection)
            return true
        }
    }

    /// Records `record` as one history transaction on `connection`, inside the caller's write transaction, and
    /// notes its number as this store's own (so the change watcher does not report it as another writer's).
    ///
    /// - Returns: the transaction number.
    func writeHistory(_ record: HistoryRecord, _ connection: SQLiteConnection) throws -> Int64 {
        let number = try SQLiteHistoryTables.recordTransaction(author: record.author, contextName: record.contextName,
            connection)
        if !record.changes.isEmpty {
            var key = try SQLiteHistoryTables.reserveKeys(SQLiteHistoryTables.changeEntityNumber,
                count: Int64(record.changes.count), connection)
            // Changes without tombstones go in multi-row statements of up to `rowsPerInsert` rows: one statement
            // step per row costs SQLite about a fifth more than the row's own insert.
            var plain: [HistoryRecord.Change] = []
            plain.reserveCapacity(min(record.changes.count, Self.historyRowsPerInsert))
            func flush() throws {
                guard !plain.isEmpty else { return }
                let statement = try connection.cachedStatement(Self.changeInsertSQL(rows: plain.count))
                statement.reset()
                var index: Int32 = 1
                for change in plain {
                    try statement.bind(int64: key, at: index)
                    try statement.bind(int64: Int64(change.type.rawValue), at: index + 1)
                    try statement.bind(int64: change.entityNumber, at: index + 2)
                    try statement.bind(int64: change.primaryKey, at: index + 3)
                    try statement.bind(int64: number, at: index + 4)
                    try statement.bind(change.columns.map { SQLiteValue.blob($0) } ?? .null, at: index + 5)
                    index += 6
                    key += 1
                }
                _ = try statement.step()
                plain.removeAll(keepingCapacity: true)
            }
            for var change in record.changes {
                if change.tombstone.count > historyTombstoneColumns {
                    change.tombstone = Array(change.tombstone.prefix(historyTombstoneColumns))
                }
                if change.tombstone.isEmpty {
                    plain.append(change)
                    if plain.count == Self.historyRowsPerInsert { try flush() }
                    continue
                }
                try flush()
                let slots = change.tombstone.indices.map { ", ZTOMBSTONE\($0)" }.joined()
                let marks = String(repeating: ", ?", count: change.tombstone.count)
                try connection.cachedStatement(
                    "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, "
                        + "ZCOLUMNS\(slots)) VALUES (?, ?, 1, ?, ?, ?, ?, NULL\(marks))"
                ).run([.integer(key), .integer(SQLiteHistoryTables.changeEntityNumber),
                    .integer(Int64(change.type.rawValue)), .integer(change.entityNumber),
                    .integer(change.primaryKey), .integer(number)] + change.tombstone)
                key += 1
            }
            try flush()
        }
        ownTransactions.withLock { _ = $0.insert(number) }
        return number
    }

    /// Forgets a transaction number noted as this store's own whose transaction then rolled back (the number
    /// will be handed out again, maybe to another writer).
    func forgetUncommitted(_ number: Int64?) {
        guard let number else { return }
        ownTransactions.withLock { _ = $0.remove(number) }
    }

    /// The most change rows one `INSERT` writes.
    static let historyRowsPerInsert = 64

    /// `INSERT INTO ACHANGE … VALUES (…), (…)` for `rows` changes without tombstones, six parameters each.
    static func changeInsertSQL(rows: Int) -> String {
        "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES "
            + Array(repeating: "(?, \(SQLiteHistoryTables.changeEntityNumber), 1, ?, ?, ?, ?, ?)", count: rows)
                .joined(separator: ", ")
    }

    /// The history record of a save, once the inserts have their keys (`result`).
    func historyRecord(of request: StoreSaveRequest, result: StoreSaveResult, tombstones: [ManagedObjectID: [SQLiteValue]])
        -> HistoryRecord
    {
        var record = HistoryRecord(author: request.author, contextName: request.contextName)
        record.changes.reserveCapacity(request.inserts.count + request.updates.count + request.deletes.count)
        for insert in request.inserts {
            guard let key = (insert.permanentID ?? result.permanentIDs[insert.temporaryID])?.primaryKey else { continue }
            record.changes.append(.init(entityNumber: Int64(model.entityNumber(of: insert.entity)), primaryKey: key,
                type: .insert))
        }
        for update in request.updates {
            guard let key = update.objectID.primaryKey else { continue }
            let columns = update.changedProperties.map { changed in
                SQLiteHistoryTables.columnBits(attributes: changed.attributes, relationships: changed.relationships,
                    attributeCount: update.entity.attributes.count)
            }
            record.changes.append(.init(entityNumber: Int64(model.entityNumber(of: update.entity)), primaryKey: key,
                type: .update, columns: columns))
        }
        for delete in request.deletes {
            guard let key = delete.objectID.primaryKey else { continue }
            record.changes.append(.init(entityNumber: Int64(model.entityNumber(of: delete.entity)), primaryKey: key,
                type: .delete, tombstone: tombstones[delete.objectID] ?? []))
        }
        return record
    }

    /// The history record of a batch operation: its inserts, its updates (with the attributes it set, when
    /// `changedAttributes` is given) and its deletes.
    func historyRecord(of outcome: StoreBatchOutcome, changedAttributes: IndexBits?,
        tombstones: [ManagedObjectID: [SQLiteValue]]) -> HistoryRecord
    {
        var record = HistoryRecord()
        record.changes.reserveCapacity(outcome.inserted.count + outcome.updated.count + outcome.deleted.count)
        var numbers: [String: Int64] = [:]
        func number(_ id: ManagedObjectID) -> Int64 {
            if let known = numbers[id.entityName] { return known }
            let found = Int64(model.entity(named: id.entityName).map(model.entityNumber(of:)) ?? 0)
            numbers[id.entityName] = found
            return found
        }
        for id in outcome.inserted { record.changes.append(.init(entityNumber: number(id), primaryKey: id.key, type: .insert)) }
        let columns = changedAttributes.map { SQLiteHistoryTables.columnBits(attributes: $0, relationships: [], attributeCount: 0) }
        for id in outcome.updated {
            record.changes.append(.init(entityNumber: number(id), primaryKey: id.key, type: .update, columns: columns))
        }
        for id in outcome.deleted {
            record.changes.append(.init(entityNumber: number(id), primaryKey: id.key, type: .delete,
                tombstone: tombstones[id] ?? []))
        }
        return record
    }

    /// ``tombstones(of:_:)`` for objects a batch delete is about to delete.
    func tombstones(ofDeleted ids: [ManagedObjectID], _ connection: SQLiteConnection) throws -> [ManagedObjectID: [SQLiteValue]] {
        try tombstones(of: ids.compactMap { id in
            model.entity(named: id.entityName).map { StoreSaveRequest.Delete(objectID: id, entity: $0, expectedVersion: 0) }
        }, connection)
    }

    /// The indexes of `entity`'s attributes whose values a delete keeps in the history's tombstone.
    static func preservedAttributeIndexes(of entity: EntityDescription) -> [Int] {
        entity.attributes.indices.filter {
            entity.attributes[$0].preservesValueInHistoryOnDeletion && !entity.attributes[$0].isTransient
                && !entity.attributes[$0].allowsExternalBinaryDataStorage
        }
    }

    /// The tombstone values of the rows about to be deleted (only entities with preserved attributes are read).
    func tombstones(of deletes: [StoreSaveRequest.Delete], _ connection: SQLiteConnection) throws
        -> [ManagedObjectID: [SQLiteValue]]
    {
        var result: [ManagedObjectID: [SQLiteValue]] = [:]
        for delete in deletes {
            let preserved = Self.preservedAttributeIndexes(of: delete.entity)
            guard !preserved.isEmpty, let key = delete.objectID.primaryKey else { continue }
            let layout = try layout(of: delete.entity)
            let columns = preserved.map { delete.entity.attributes[$0].columnName }.joined(separator: ", ")
            if let row = try connection.rows("SELECT \(columns) FROM \(layout.tableName) WHERE Z_PK = ?", [.integer(key)]).first {
                result[delete.objectID] = row
            }
        }
        return result
    }

    /// The number of the newest transaction in the history (0 when there is none).
    func newestTransactionNumber(_ connection: SQLiteConnection) throws(SQLiteError) -> Int64 {
        guard try SQLiteHistoryTables.exist(connection),
            case .integer(let number)? = try connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION")
        else { return 0 }
        return number
    }

    /// The transactions numbered above `number` (or, with `date`, committed after it), oldest first, with their
    /// changes. With `checkingPurges`, a gap between `number` and the oldest kept transaction is an error.
    ///
    /// - Throws: ``ObjectGraphError/historyTokenExpired(store:token:oldestAvailable:)`` when transactions after
    ///   `number` were purged.
    func historyTransactions(
        after number: Int64, date: Date? = nil, checkingPurges: Bool = true, _ connection: SQLiteConnection
    ) throws -> [PersistentHistoryTransaction] {
        guard try SQLiteHistoryTables.exist(connection) else { return [] }
        if date == nil && checkingPurges { try checkNotPurged(after: number, connection) }
        var strings: [Int64: String] = [:]
        for row in try connection.rows("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") {
            if case .integer(let key) = row[0], case .text(let name) = row[1] { strings[key] = name }
        }
        func text(_ interned: SQLiteValue, _ inline: SQLiteValue) -> String? {
            if case .integer(let key) = interned, let name = strings[key] { return name }
            if case .text(let name) = inline { return name }
            return nil
        }
        var condition = "Z_PK > ?"
        var arguments: [SQLiteValue] = [.integer(number)]
        if let date {
            condition = "ZTIMESTAMP > ?"
            arguments = [.real(date.timeIntervalSinceReferenceDate)]
        }
        let transactionRows = try connection.rows(
            "SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZAUTHOR, ZCONTEXTNAMETS, ZCONTEXTNAME, ZPROCESSIDTS, ZPROCESSID, "
                + "ZBUNDLEIDTS, ZBUNDLEID FROM ATRANSACTION WHERE \(condition) ORDER BY Z_PK", arguments)
        guard let first = transactionRows.first, case .integer(let firstNumber) = first[0] else { return [] }
        let tombstoneCount = try SQLiteHistoryTables.tombstoneColumnCount(connection)
        let tombstoneList = (0..<tombstoneCount).map { ", ZTOMBSTONE\($0)" }.joined()
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        for row in try connection.rows(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneList) FROM ACHANGE "
                + "WHERE ZTRANSACTIONID >= ? ORDER BY Z_PK", [.integer(firstNumber)])
        {
            guard case .integer(let changeID) = row[0], case .integer(let typeNumber) = row[1],
                case .integer(let entityNumber) = row[2], case .integer(let key) = row[3],
                case .integer(let transaction) = row[4],
                let type = PersistentHistoryChange.ChangeType(rawValue: Int(typeNumber)),
                let layout = layout(forEntityNumber: Int(entityNumber))
            else { continue }
            let entity = layout.entity
            var updated: Set<String>?
            if type == .update, case .blob(let bytes) = row[5] {
                updated = SQLiteHistoryTables.propertyNames(bytes, entity: entity)
            }
            var tombstone: [String: AttributeValue]?
            if type == .delete {
                let preserved = Self.preservedAttributeIndexes(of: entity)
                if !preserved.isEmpty {
                    var values: [String: AttributeValue] = [:]
                    for (slot, index) in preserved.enumerated() where 6 + slot < row.count {
                        let attribute = entity.attributes[index]
                        values[attribute.name] = AttributeValue(sqliteValue: row[6 + slot], type: attribute.attributeType)
                    }
                    tombstone = values
                }
            }
            let id = ManagedObjectID(namespace: idNamespaces.namespace(entityName: entity.name), key: key)
            changes[transaction, default: []].append(PersistentHistoryChange(changeID: changeID, changedObjectID: id,
                changeType: type, updatedProperties: updated, tombstone: tombstone))
        }
        return transactionRows.compactMap { row in
            guard case .integer(let number) = row[0] else { return nil }
            var seconds = 0.0
            if case .real(let value) = row[1] { seconds = value } else if case .integer(let value) = row[1] { seconds = Double(value) }
            return PersistentHistoryTransaction(transactionNumber: number, storeIdentifier: identifier,
                timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: text(row[2], row[3]),
                contextName: text(row[4], row[5]), processID: text(row[6], row[7]), bundleID: text(row[8], row[9]),
                changes: changes[number] ?? [])
        }
    }

    /// Fails when transactions after `number` have been purged (their numbers are handed out without gaps, so
    /// a gap between `number` and the oldest kept one means purged history).
    private func checkNotPurged(after number: Int64, _ connection: SQLiteConnection) throws {
        let oldest: Int64
        if case .integer(let value)? = try connection.scalar("SELECT min(Z_PK) FROM ATRANSACTION") {
            oldest = value
        } else if case .integer(let maximum)? = try connection.scalar(
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(SQLiteHistoryTables.transactionEntityNumber)])
        {
            oldest = maximum + 1
        } else {
            return
        }
        if number + 1 < oldest {
            throw ObjectGraphError.historyTokenExpired(store: identifier, transactionNumber: number,
                oldestAvailable: oldest)
        }
    }

    /// Deletes the transactions numbered `number` and below (or committed before `date`) with their changes, in
    /// one transaction; the interned strings stay.
    ///
    /// - Returns: how many transactions were deleted.
    func deleteHistory(through number: Int64?, before date: Date?) throws(ObjectGraphError) -> Int {
        guard !isReadOnly else { throw .readOnlyStore(store: path) }
        return try withWriter { connection throws(ObjectGraphError) in
            try sqlite {
                guard try SQLiteHistoryTables.exist(connection) else { return 0 }
                return try connection.transaction(.immediate) {
                    var last = number ?? Int64.max
                    if let date {
                        let before = try connection.scalar("SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?",
                            [.real(date.timeIntervalSinceReferenceDate)])
                        guard case .integer(let found)? = before else { return 0 }
                        last = min(last, found)
                    }
                    try connection.prepare("DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?").run([.integer(last)])
                    try connection.prepare("DELETE FROM ATRANSACTION WHERE Z_PK <= ?").run([.integer(last)])
                    return connection.changes
                }
            }
        }
    }
}

import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore: PersistentHistoryStore {
    /// Always: every save and batch request writes its `Z_CHANGES` row.
    public var recordsHistory: Bool { true }

    public func historyTransactions(after transactionNumber: Int64, checkingPurges: Bool) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    {
        try history(#"WHERE "Z_TXID" > $1"#, [String(transactionNumber)])
    }

    public func historyTransactions(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        try history(#"WHERE "Z_TIME" > to_timestamp($1::double precision)"#, ["\(date.timeIntervalSince1970)"])
    }

    public func newestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        try withLock { () throws(ObjectGraphError) -> Int64 in
            try writer.ensureConnected()
            let rows = try writer.execute(#"SELECT coalesce(max("Z_TXID"), 0) FROM "Z_CHANGES""#)
            return rows.first?[0].flatMap { $0 }.flatMap { Int64($0) } ?? 0
        }
    }

    /// Refused: other clients catch up from `Z_CHANGES` after a dropped connection, so it is kept whole.
    public func deleteHistory(through transactionNumber: Int64?, before date: Date?) throws(ObjectGraphError) -> Int {
        throw .unsupportedStoreOperation("the history of a PostgreSQL store (Z_CHANGES) is not purged yet")
    }

    /// The `Z_CHANGES` rows `condition` selects, oldest first, as history transactions.
    private func history(_ condition: String, _ parameters: [String?]) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    {
        let rows = try withLock { () throws(ObjectGraphError) -> PostgresConnection.Rows in
            try writer.ensureConnected()
            return try writer.execute(
                #"SELECT "Z_TXID", extract(epoch FROM "Z_TIME"), "Z_PROCESS", "Z_AUTHOR", "Z_CONTEXT", "Z_INSERTED", "#
                    + #""Z_UPDATED", "Z_DELETED" FROM "Z_CHANGES" \#(condition) ORDER BY "Z_TXID""#, parameters)
        }
        return rows.compactMap { row in
            guard let number = row[0].flatMap({ Int64($0) }) else { return nil }
            var changes: [PersistentHistoryChange] = []
            for (column, type) in [(5, PersistentHistoryChange.ChangeType.insert), (6, .update), (7, .delete)] {
                for reference in PostgresReference.parseArray(row[column]).compactMap(PostgresReference.parse) {
                    let id = replicaStorage.objectID(entityName: reference.entityName, primaryKey: reference.primaryKey)
                    changes.append(PersistentHistoryChange(changeID: number * 1_000_000 + Int64(changes.count),
                        changedObjectID: id, changeType: type))
                }
            }
            let seconds = row[1].flatMap { Double($0) } ?? 0
            return PersistentHistoryTransaction(transactionNumber: number, storeIdentifier: identifier,
                timestamp: Date(timeIntervalSince1970: seconds), author: row[3], contextName: row[4], processID: row[2],
                changes: changes)
        }
    }
}

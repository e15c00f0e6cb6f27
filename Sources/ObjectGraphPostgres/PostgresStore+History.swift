import Foundation
@_spi(StoreImplementation) import ObjectGraph

extension PostgresStore: PersistentHistoryStore {
    /// Always: every save and batch request writes its `Z_CHANGES` row.
    public var recordsHistory: Bool { true }

    public func historyTransactions(after transactionNumber: Int64, checkingPurges: Bool) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    {
        if checkingPurges {
            let purged = try withLock { () throws(ObjectGraphError) -> Int64 in
                try writer.ensureConnected()
                return try purgedThrough(on: writer)
            }
            if purged > transactionNumber {
                throw .historyTokenExpired(store: identifier, transactionNumber: transactionNumber,
                    oldestAvailable: purged + 1)
            }
        }
        return try history(#"WHERE "Z_TXID" > $1"#, [String(transactionNumber)])
    }

    public func historyTransactions(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        try history(#"WHERE "Z_TIME" > to_timestamp($1::double precision)"#, ["\(date.timeIntervalSince1970)"])
    }

    public func newestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        try withLock { () throws(ObjectGraphError) -> Int64 in
            try writer.ensureConnected()
            return try newestTransaction(on: writer)
        }
    }

    /// Deletes the `Z_CHANGES` rows numbered `transactionNumber` and below (or committed before `date`), in one
    /// transaction, and records how far the purge went in `Z_PURGED`: a token from before it then fails with
    /// ``ObjectGraphError/historyTokenExpired(store:transactionNumber:oldestAvailable:)``, and a client that had
    /// not yet seen the purged transactions (its connection was down) reads every row again instead of missing
    /// them, and reports what changed as one commit. Numbers are never reused.
    ///
    /// - Returns: how many transactions were deleted.
    public func deleteHistory(through transactionNumber: Int64?, before date: Date?) throws(ObjectGraphError) -> Int {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        return try withLock { () throws(ObjectGraphError) -> Int in
            try writer.ensureConnected()
            try writer.execute("BEGIN")
            do throws(ObjectGraphError) {
                // (Purges one at a time, like commits: the recorded bound only grows.)
                try writer.execute("SELECT pg_advisory_xact_lock(7301002)")
                var last = min(transactionNumber ?? Int64.max, try newestTransaction(on: writer))
                if let date {
                    let found = try writer.execute(#"SELECT max("Z_TXID") FROM "Z_CHANGES" WHERE "Z_TIME" < "#
                        + #"to_timestamp($1::double precision)"#, ["\(date.timeIntervalSince1970)"])
                    guard let number = found.first?[0].flatMap({ $0 }).flatMap({ Int64($0) }) else {
                        try writer.execute("COMMIT")
                        return 0
                    }
                    last = min(last, number)
                }
                let deleted = try writer.executeCount(#"DELETE FROM "Z_CHANGES" WHERE "Z_TXID" <= $1"#, [String(last)])
                if last > 0 {
                    try writer.execute(#"INSERT INTO "Z_PURGED" ("Z_ONE", "Z_THROUGH") VALUES (1, $1) ON CONFLICT ("Z_ONE") "#
                        + #"DO UPDATE SET "Z_THROUGH" = greatest("Z_PURGED"."Z_THROUGH", EXCLUDED."Z_THROUGH")"#, [String(last)])
                }
                try writer.execute("COMMIT")
                return deleted
            } catch {
                _ = try? writer.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The newest transaction number handed out: the newest `Z_CHANGES` row's, or the purge's bound when the log
    /// was purged to its end. Call holding ``lock``.
    func newestTransaction(on connection: PostgresConnection) throws(ObjectGraphError) -> Int64 {
        Self.newestTransaction(in: try connection.execute(Self.newestTransactionQuery))
    }

    /// The query behind ``newestTransaction(on:)`` (also sent in pipelines).
    static let newestTransactionQuery = #"SELECT greatest(coalesce(max("Z_TXID"), 0), "#
        + #"coalesce((SELECT "Z_THROUGH" FROM "Z_PURGED"), 0)) FROM "Z_CHANGES""#

    /// The transaction number `rows` of ``newestTransactionQuery`` give.
    static func newestTransaction(in rows: PostgresConnection.Rows) -> Int64 {
        rows.first?[0].flatMap { $0 }.flatMap { Int64($0) } ?? 0
    }

    /// The newest transaction number a purge removed (0 when the log was never purged).
    func purgedThrough(on connection: PostgresConnection) throws(ObjectGraphError) -> Int64 {
        let statement = Self.boundStatement("Z_PURGED")
        return Self.bound(try connection.execute(statement.sql, statement.parameters))
    }

    /// The transaction number through which a restore last replaced the store's contents (`Z_RESTORED`; 0 when
    /// none did).
    func restoredThrough(on connection: PostgresConnection) throws(ObjectGraphError) -> Int64 {
        let statement = Self.boundStatement("Z_RESTORED")
        return Self.bound(try connection.execute(statement.sql, statement.parameters))
    }

    /// The statement that reads the `Z_THROUGH` of a one-row bound table (`Z_PURGED`, `Z_RESTORED`), 0 when it
    /// has no row; ``bound(_:)`` reads its answer.
    static func boundStatement(_ table: String) -> PostgresConnection.Statement {
        PostgresConnection.Statement(#"SELECT coalesce((SELECT "Z_THROUGH" FROM \#(PostgresSQL.identifier(table))), 0)"#)
    }

    /// The bound a ``boundStatement(_:)`` returned.
    static func bound(_ rows: PostgresConnection.Rows) -> Int64 {
        rows.first?[0].flatMap { $0 }.flatMap { Int64($0) } ?? 0
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

import CSQLite

/// Transactions, savepoints and what the last statements changed.
extension SQLiteConnection {
    /// Runs `body` in a transaction: `BEGIN <kind>`, then `COMMIT`. If `body` throws, or `COMMIT` fails,
    /// the transaction is rolled back (when SQLite has not already ended it) and the error is rethrown,
    /// so no transaction is left open either way. Transactions do not nest; use ``savepoint(_:_:)``.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try execute(kind.beginSQL)
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIfOpen()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Runs `body` inside `SAVEPOINT name` … `RELEASE name`; if it throws, rolls back to the savepoint,
    /// releases it and rethrows. Works inside or outside a transaction.
    public func savepoint<T>(_ name: String = "savepoint", _ body: () throws -> T) throws -> T {
        let quoted = Self.quoteIdentifier(name)
        try execute("SAVEPOINT \(quoted)")
        let result: T
        do {
            result = try body()
        } catch {
            if isOpen {
                _ = try? execute("ROLLBACK TO \(quoted)")
                _ = try? execute("RELEASE \(quoted)")
            }
            throw error
        }
        do {
            try execute("RELEASE \(quoted)")
        } catch {
            if isOpen {
                _ = try? execute("ROLLBACK TO \(quoted)")
                _ = try? execute("RELEASE \(quoted)")
            }
            throw error
        }
        return result
    }

    private func rollbackIfOpen() {
        guard let db = handle.db, sqlite3_get_autocommit(db) == 0 else { return }
        // ROLLBACK fails only when there is nothing to roll back or the handle is unusable; either way
        // there is nothing better to do, and the caller's error is the one to report.
        _ = try? execute("ROLLBACK")
    }

    /// Whether a transaction is open (`sqlite3_get_autocommit` is off).
    public var isInTransaction: Bool {
        guard let db = handle.db else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
    public var changes: Int {
        guard let db = handle.db else { return 0 }
        return Int(sqlite3_changes64(db))
    }

    /// Rows changed since the connection opened (`sqlite3_total_changes64`).
    public var totalChanges: Int {
        guard let db = handle.db else { return 0 }
        return Int(sqlite3_total_changes64(db))
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        guard let db = handle.db else { return 0 }
        return sqlite3_last_insert_rowid(db)
    }
}

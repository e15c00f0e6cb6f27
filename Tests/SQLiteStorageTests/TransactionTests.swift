import Testing

@testable import SQLiteStorage

private struct Abort: Error, Equatable {}

@Suite struct TransactionTests {
    @Test func commitKeepsChangesAndReturnsTheBodysValue() throws {
        let db = try valueTable()
        let id = try db.transaction(.immediate) { () throws -> Int64 in
            #expect(db.isInTransaction)
            try db.prepare("INSERT INTO t(v) VALUES ('kept')").run()
            #expect(db.changes == 1)
            return db.lastInsertRowID
        }
        #expect(id == 1)
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT id, v FROM t") == [[1, "kept"]])
    }

    @Test(arguments: [SQLiteConnection.TransactionKind.deferred, .immediate, .exclusive])
    func thrownErrorRollsBackAndIsRethrown(kind: SQLiteConnection.TransactionKind) throws {
        let db = try valueTable()
        try db.execute("INSERT INTO t(v) VALUES ('before')")
        #expect(throws: Abort()) {
            try db.transaction(kind) {
                try db.execute("INSERT INTO t(v) VALUES ('inside'); UPDATE t SET v = 'changed'")
                throw Abort()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT v FROM t") == [["before"]])
    }

    @Test func sqliteErrorInsideRollsBackEarlierWork() throws {
        let db = try valueTable()
        try db.execute("CREATE UNIQUE INDEX t_v ON t(v)")
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction {
                let insert = try db.cachedStatement("INSERT INTO t(v) VALUES (?)")
                try insert.run(["one"])
                try insert.run(["two"])
                try insert.run(["one"])
            }
        }
        #expect(error.code == SQLiteError.constraint)
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func transactionsDoNotNest() throws {
        let db = try valueTable()
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute("INSERT INTO t(v) VALUES (1)")
                try db.transaction { try db.execute("INSERT INTO t(v) VALUES (2)") }
            }
        }
        #expect(error.message.contains("within a transaction"))
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func bodyThatEndsTheTransactionItselfStillLeavesNoneOpen() throws {
        let db = try valueTable()
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute("INSERT INTO t(v) VALUES (1); ROLLBACK")
            }
        }
        #expect(error.sql == "COMMIT")
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func savepointRollsBackOnlyItsOwnWork() throws {
        let db = try valueTable()
        try db.transaction {
            try db.execute("INSERT INTO t(v) VALUES ('outer')")
            #expect(throws: Abort()) {
                try db.savepoint("inner \"quoted\"") {
                    try db.execute("INSERT INTO t(v) VALUES ('inner')")
                    throw Abort()
                }
            }
            #expect(db.isInTransaction)
            try db.savepoint { try db.execute("INSERT INTO t(v) VALUES ('kept')") }
        }
        #expect(try db.rows("SELECT v FROM t ORDER BY id") == [["outer"], ["kept"]])
    }
}

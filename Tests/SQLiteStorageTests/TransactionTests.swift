import Foundation
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

    @Test func openingWaitsForALockHeldAMomentThenFailsAtOnceAgain() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("locked.sqlite")
            let holder = try SQLiteConnection(path: path)  // a rollback journal: an exclusive lock keeps readers out
            try holder.execute("CREATE TABLE t(x)")
            try holder.execute("BEGIN EXCLUSIVE")
            try holder.execute("INSERT INTO t VALUES (1)")
            let released = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
                _ = try? holder.execute("COMMIT")
                released.signal()
            }
            // The schema read waits for the lock instead of failing with `busy`.
            let opened = try SQLiteConnection(path: path)
            #expect(released.wait(timeout: .now() + 30) == .success)
            #expect(try opened.scalar("SELECT count(*) FROM t") == .integer(1))
            // Afterwards the busy timeout is zero again: a lock fails at once.
            try holder.execute("BEGIN EXCLUSIVE")
            #expect(throws: SQLiteError.self) { try opened.scalar("SELECT count(*) FROM t") }
            try holder.execute("COMMIT")
        }
    }
}

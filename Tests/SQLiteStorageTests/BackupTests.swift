import Foundation
import Testing

@testable import SQLiteStorage

/// SQLite's online backup: a consistent copy of a live WAL database, including what is still in its `-wal`
/// file, made while another connection holds a write transaction open.
@Suite struct BackupTests {
    /// A WAL database with automatic checkpoints off, so committed rows stay in the `-wal` file while the
    /// returned connection is open.
    private func walDatabase(_ path: String, rows: Int) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: path)
        try db.setJournalModeWAL()
        _ = try db.scalar("PRAGMA wal_autocheckpoint = 0")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
        try db.transaction(.immediate) {
            let insert = try db.prepare("INSERT INTO t(name, payload) VALUES (?, ?)")
            for index in 0..<rows {
                try insert.run([.text("row \(index)"), .blob([UInt8](repeating: UInt8(index % 251), count: 300))])
            }
        }
        return db
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func copyIncludesCommittedRowsStillInTheWALAndPassesIntegrityCheck() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("source.sqlite")
            let source = try walDatabase(path, rows: 500)
            // The test is only meaningful if the rows really are in the WAL and not in the main file:
            // a copy of the main file alone does not have them.
            #expect(fileSize(path + "-wal") > 0)
            let plainCopy = dir.file("plain-copy.sqlite")
            try FileManager.default.copyItem(atPath: path, toPath: plainCopy)
            let plain = try SQLiteConnection(path: plainCopy, mode: .readOnly)
            #expect(try plain.tableExists("t") == false, "the main file already had the table; nothing was in the WAL")
            plain.close()

            let destination = try SQLiteConnection(path: dir.file("copy.sqlite"))
            try source.backup(to: destination)
            #expect(try destination.scalar("SELECT count(*) FROM t") == .integer(500))
            #expect(try destination.scalar("SELECT name FROM t WHERE id = 500") == .text("row 499"))
            #expect(try destination.rows("PRAGMA integrity_check") == [["ok"]])
            // The copy is a WAL database, like its source.
            destination.close()
            let reopened = try SQLiteConnection(path: dir.file("copy.sqlite"))
            #expect(try reopened.pragma("journal_mode") == .text("wal"))
            #expect(try reopened.scalar("SELECT count(*) FROM t") == .integer(500))
        }
    }

    @Test func copyMadeWhileAnotherConnectionHoldsAWriteTransactionHasOnlyCommittedRows() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("source.sqlite")
            let setup = try walDatabase(path, rows: 100)
            let writer = try SQLiteConnection(path: path)
            try writer.execute("BEGIN IMMEDIATE")
            try writer.execute("INSERT INTO t(name) VALUES ('uncommitted'); DELETE FROM t WHERE id <= 10")
            #expect(writer.isInTransaction)

            // A separate connection, as a backup tool would open: it neither waits for the writer nor sees it.
            let reader = try SQLiteConnection(path: path, mode: .readOnly)
            reader.setBusyTimeout(milliseconds: 0)
            let destination = try SQLiteConnection(path: dir.file("copy.sqlite"))
            try reader.backup(to: destination, busyRetries: 0)
            #expect(writer.isInTransaction)
            try writer.execute("COMMIT")

            #expect(try destination.scalar("SELECT count(*) FROM t") == .integer(100))
            #expect(try destination.scalar("SELECT count(*) FROM t WHERE name = 'uncommitted'") == .integer(0))
            #expect(try destination.rows("PRAGMA integrity_check") == [["ok"]])
            #expect(try setup.scalar("SELECT count(*) FROM t") == .integer(91))
        }
    }

    @Test func overwritingAWALDestinationReplacesItsContentsAndItsOldWAL() throws {
        try withTemporaryDirectory { dir in
            let source = try walDatabase(dir.file("source.sqlite"), rows: 20)
            // The destination has committed rows of its own in its WAL, and an open reader.
            let destinationPath = dir.file("destination.sqlite")
            let old = try walDatabase(destinationPath, rows: 1000)
            try old.execute("CREATE TABLE obsolete(x)")
            #expect(fileSize(destinationPath + "-wal") > 0)

            let destination = try SQLiteConnection(path: destinationPath)
            try source.backup(to: destination)
            destination.close()
            old.close()

            let reopened = try SQLiteConnection(path: destinationPath)
            #expect(try reopened.scalar("SELECT count(*) FROM t") == .integer(20))
            #expect(try reopened.tableExists("obsolete") == false)
            #expect(try reopened.rows("PRAGMA integrity_check") == [["ok"]])
        }
    }

    @Test func backupInSmallStepsReportsProgress() throws {
        try withTemporaryDirectory { dir in
            let source = try walDatabase(dir.file("source.sqlite"), rows: 300)
            let destination = try SQLiteConnection(path: dir.file("copy.sqlite"))
            let backup = try SQLiteBackup(from: source, to: destination)
            #expect(backup.pageCount == 0)
            var steps = 0
            while try !backup.step(pages: 5) {
                steps += 1
                #expect(backup.pageCount > 0)
                #expect(backup.remainingPages < backup.pageCount)
            }
            #expect(steps > 1)
            #expect(backup.remainingPages == 0)
            try backup.finish()
            try backup.finish()  // a second finish does nothing
            #expect(throws: SQLiteError.self) { try backup.step() }
            #expect(try destination.scalar("SELECT count(*) FROM t") == .integer(300))
            #expect(try destination.rows("PRAGMA integrity_check") == [["ok"]])
        }
    }

    @Test func misuseIsATypedError() throws {
        let db = try SQLiteConnection.inMemory()
        let same = try #require(throws: SQLiteError.self) { try db.backup(to: db) }
        #expect(same.code == SQLiteError.misuse)

        let closed = try SQLiteConnection.inMemory()
        closed.close()
        let error = try #require(throws: SQLiteError.self) { try db.backup(to: closed) }
        #expect(error.code == SQLiteError.misuse)

        // A destination inside a read transaction cannot be overwritten.
        let source = try SQLiteConnection.inMemory()
        try source.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let busy = try SQLiteConnection.inMemory()
        try busy.execute("CREATE TABLE u(x); INSERT INTO u VALUES (1)")
        let statement = try busy.prepare("SELECT x FROM u")
        #expect(try statement.step())
        try busy.execute("BEGIN")
        #expect(throws: SQLiteError.self) { try source.backup(to: busy, busyRetries: 0) }
        statement.reset()
        try busy.execute("ROLLBACK")
        try source.backup(to: busy)
        #expect(try busy.scalar("SELECT x FROM t") == .integer(1))
    }
}

import Testing

@testable import SQLiteStorage

@Suite struct WALTests {
    @Test func readersSeeCommittedRowsWhileTheWriterHoldsAnImmediateTransaction() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("wal.sqlite")
            let writer = try SQLiteConnection(path: path)
            try writer.setJournalModeWAL()
            try writer.execute(
                "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t(name) VALUES ('a'), ('b'), ('c')")

            let reader = try SQLiteConnection(path: path, mode: .readOnly)
            // With no busy timeout, any wait for a lock would fail at once with SQLITE_BUSY.
            reader.setBusyTimeout(milliseconds: 0)
            #expect(try reader.pragma("journal_mode") == .text("wal"))

            try writer.execute("BEGIN IMMEDIATE")
            try writer.prepare("INSERT INTO t(name) VALUES (?)").run(["uncommitted"])
            #expect(writer.isInTransaction)
            #expect(try writer.scalar("SELECT count(*) FROM t") == .integer(4))

            // The write lock is really held: a second writer cannot begin.
            let otherWriter = try SQLiteConnection(path: path)
            let busy = try #require(throws: SQLiteError.self) { try otherWriter.execute("BEGIN IMMEDIATE") }
            #expect(busy.code == SQLiteError.busy)
            #expect(busy.isBusyOrLocked)

            // The reader does not wait and does not see the uncommitted row.
            let names = try reader.rows("SELECT name FROM t ORDER BY id")
            #expect(names == [["a"], ["b"], ["c"]])

            // A read transaction keeps its snapshot across the writer's commit...
            try reader.execute("BEGIN")
            #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(3))
            try writer.execute("COMMIT")
            #expect(!writer.isInTransaction)
            #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(3))
            try reader.execute("COMMIT")

            // ...and the next read sees the committed row.
            #expect(try reader.rows("SELECT name FROM t ORDER BY id") == [["a"], ["b"], ["c"], ["uncommitted"]])
            let statement = try reader.cachedStatement("SELECT count(*) FROM t")
            #expect(try statement.step())
            #expect(statement.int64(at: 0) == 4)
        }
    }

    @Test func walCannotBeSetOnAnInMemoryDatabase() throws {
        let db = try SQLiteConnection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try db.setJournalModeWAL() }
        #expect(error.message.contains("memory"))
    }
}

import Testing

@testable import SQLiteStorage

@Suite struct StatementTests {
    @Test func cachedStatementIsReusedAndComesBackReset() throws {
        let db = try valueTable()
        let insert = try db.cachedStatement("INSERT INTO t(id, v) VALUES (?, ?)")
        try db.transaction {
            for i in 1...1000 {
                let again = try db.cachedStatement("INSERT INTO t(id, v) VALUES (?, ?)")
                #expect(again === insert)
                try again.bind(int64: Int64(i), at: 1)
                try again.bind(text: "row \(i)", at: 2)
                try again.run()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1000))

        // Stop part-way through a result, then ask for the statement again: it starts over.
        let select = try db.cachedStatement("SELECT v FROM t WHERE id <= ? ORDER BY id")
        try select.bind(int64: 3, at: 1)
        #expect(try select.step())
        #expect(select.text(at: 0) == "row 1")
        let reused = try db.cachedStatement("SELECT v FROM t WHERE id <= ? ORDER BY id")
        #expect(reused === select)
        // Bindings were cleared: NULL matches nothing.
        #expect(try reused.step() == false)
        try reused.bind(int64: 3, at: 1)
        #expect(try reused.allRows() == [["row 1"], ["row 2"], ["row 3"]])
        #expect(db.cachedStatementCount == 2)

        db.clearStatementCache()
        #expect(db.cachedStatementCount == 0)
        #expect(throws: SQLiteError.self) { try select.step() }
        let fresh = try db.cachedStatement("SELECT v FROM t WHERE id <= ? ORDER BY id")
        #expect(fresh !== select)
        try fresh.bind([2])
        #expect(try fresh.allRows() == [["row 1"], ["row 2"]])
    }

    @Test func bindingMidRunIsMisuseButFinishedStatementsRebind() throws {
        let db = try valueTable()
        try db.execute("INSERT INTO t(v) VALUES (1), (2)")
        let select = try db.prepare("SELECT v FROM t WHERE v >= ? ORDER BY v")
        try select.bind(int64: 1, at: 1)
        #expect(try select.step())
        let error = try #require(throws: SQLiteError.self) { try select.bind(int64: 2, at: 1) }
        #expect(error.code == SQLiteError.misuse)
        #expect(error.message.contains("reset"))
        select.reset()
        try select.bind(int64: 2, at: 1)
        #expect(try select.allRows() == [[2]])
        // Finished: no reset needed before binding again.
        try select.bind(int64: 1, at: 1)
        #expect(try select.allRows() == [[1], [2]])
    }

    @Test func prepareTakesExactlyOneStatement() throws {
        let db = try valueTable()
        let error = try #require(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELECT 2") }
        #expect(error.code == SQLiteError.misuse)
        _ = try db.prepare("SELECT 1;  -- a trailing comment\n ; /* and another */ ")
        #expect(throws: SQLiteError.self) { try db.prepare("   ") }
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELEC 2") }
    }

    @Test func executeRunsSeveralStatementsAndSkipsComments() throws {
        let db = try SQLiteConnection.inMemory()
        try db.execute("""
            -- schema
            CREATE TABLE a(x);
            /* data */ INSERT INTO a VALUES (1), (2);
            SELECT * FROM a;
            ;
            """)
        #expect(try db.scalar("SELECT sum(x) FROM a") == .integer(3))
        try db.execute("")
        try db.execute("  -- nothing \n")
    }

    @Test func forEachRowResetsWhenTheBodyThrows() throws {
        struct Stop: Error {}
        let db = try valueTable()
        try db.execute("INSERT INTO t(v) VALUES (1), (2), (3)")
        let select = try db.prepare("SELECT v FROM t ORDER BY id")
        var seen: [Int64] = []
        #expect(throws: Stop.self) {
            try select.forEachRow { row in
                seen.append(row.int64(at: 0))
                if seen.count == 2 { throw Stop() }
            }
        }
        #expect(seen == [1, 2])
        // The reset released the read, and the statement starts from the top again.
        #expect(try select.allRows() == [[1], [2], [3]])
    }

    @Test func runStepsThroughReturningRowsAndCountsChanges() throws {
        let db = try valueTable()
        try db.execute("INSERT INTO t(v) VALUES (1), (2), (3)")
        let update = try db.prepare("UPDATE t SET v = v * 10 WHERE v >= ? RETURNING id")
        try update.run([2])
        #expect(db.changes == 2)
        #expect(try db.rows("SELECT v FROM t ORDER BY id") == [[1], [20], [30]])
        #expect(db.totalChanges == 5)
    }

    @Test func schemaHelpers() throws {
        let db = try SQLiteConnection.inMemory()
        try db.execute("CREATE TABLE \"Person Table\"(id INTEGER PRIMARY KEY, \"first name\" TEXT, age INTEGER)")
        #expect(try db.tableExists("Person Table"))
        #expect(try db.tableExists("person table"))
        #expect(try !db.tableExists("Person"))
        #expect(try db.columnNames(ofTable: "Person Table") == ["id", "first name", "age"])
        #expect(try db.columnNames(ofTable: "missing") == [])
        #expect(SQLiteConnection.quoteIdentifier("a\"b") == "\"a\"\"b\"")
        #expect(try db.quickCheck() == [])
    }

    @Test func pragmas() throws {
        let db = try SQLiteConnection.inMemory()
        #expect(try db.pragma("user_version") == .integer(0))
        try db.execute("PRAGMA user_version = 7")
        #expect(try db.pragma("main.user_version") == .integer(7))
        #expect(try db.pragma("journal_mode") == .text("memory"))
        for bad in ["", "user_version; DROP TABLE x", "a.b.c", "1abc", "table_info(x)"] {
            let error = try #require(throws: SQLiteError.self) { try db.pragma(bad) }
            #expect(error.code == SQLiteError.misuse)
        }
    }

    @Test func errorDescriptionNamesCodesPathAndSQL() {
        let error = SQLiteError(
            code: 19, extendedCode: 2067, message: "UNIQUE constraint failed: t.v", sql: "INSERT …", path: "/tmp/x.sqlite")
        #expect(error.description == "SQLite error 19/2067 (UNIQUE constraint failed: t.v) in /tmp/x.sqlite while running: INSERT …")
        let bare = SQLiteError(code: 26, message: "")
        #expect(bare.description == "SQLite error 26 (file is not a database)")
    }
}

import CSQLite
import Foundation
import Testing

@testable import SQLiteStorage

@Suite struct ErrorTests {
    @Test func syntaxErrorCarriesTheSQL() throws {
        let db = try SQLiteConnection.inMemory()
        let sql = "SELEC nonsense FROM nowhere"
        let error = try #require(throws: SQLiteError.self) { try db.prepare(sql) }
        #expect(error.code == SQLiteError.genericError)
        #expect(error.sql == sql)
        #expect(error.message.contains("syntax error"))
        #expect(error.description.contains(sql))
        #expect(error.description.contains(":memory:"))
        #expect(error.description.hasPrefix("SQLite error 1 ("))
    }

    @Test func executeReportsTheFailingStatement() throws {
        let db = try SQLiteConnection.inMemory()
        let error = try #require(throws: SQLiteError.self) {
            try db.execute("CREATE TABLE a(x); INSERT INTO missing VALUES (1); CREATE TABLE b(y)")
        }
        #expect(error.sql == "INSERT INTO missing VALUES (1);")
        #expect(error.message.contains("no such table"))
        #expect(try db.tableExists("a"))
        #expect(try !db.tableExists("b"))
    }

    @Test func constraintViolationsHaveTypedCodes() throws {
        let db = try SQLiteConnection.inMemory()
        try db.execute("CREATE TABLE u(k TEXT UNIQUE, n NOT NULL)")
        let insert = try db.prepare("INSERT INTO u VALUES (?, ?)")
        try insert.run(["a", 1])
        let unique = try #require(throws: SQLiteError.self) { try insert.run(["a", 2]) }
        #expect(unique.code == SQLiteError.constraint)
        #expect(unique.extendedCode == SQLiteError.constraintUnique)
        #expect(unique.isConstraintViolation)
        #expect(unique.sql == "INSERT INTO u VALUES (?, ?)")
        let notNull = try #require(throws: SQLiteError.self) { try insert.run(["b", .null]) }
        #expect(notNull.extendedCode == SQLiteError.constraintNotNull)
        switch notNull {
        case SQLiteError.constraintUnique: Issue.record("matched the wrong extended code")
        case SQLiteError.constraint: break
        default: Issue.record("did not match the primary code")
        }
        #expect(try db.scalar("SELECT count(*) FROM u") == .integer(1))
    }

    @Test(arguments: [SQLiteConnection.OpenMode.readWrite, .readOnly])
    func randomBytesFailAtOpenWithNotADatabase(mode: SQLiteConnection.OpenMode) throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("random.sqlite")
            var random = SeededGenerator(seed: 26)
            try Data(random.bytes(count: 8192)).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: path, mode: mode) }
            #expect(error.code == SQLiteError.notADatabase)
            #expect(error.isCorruption)
            #expect(error.path == path)
            #expect(error.description.contains("file is not a database"))
            #expect(error.description.contains(path))
        }
    }

    @Test func damagedFilesGiveTypedErrorsNotTraps() throws {
        try withTemporaryDirectory { dir in
            // A real database with a few pages of data.
            let original = dir.file("original.sqlite")
            do {
                let db = try SQLiteConnection(path: original)
                try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX p_name ON p(name)")
                try db.transaction {
                    let insert = try db.prepare("INSERT INTO p(name) VALUES (?)")
                    for i in 0..<2000 { try insert.run([.text("person \(i)")]) }
                }
                db.close()
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
            #expect(bytes.count > 4096 * 4)
            var damaged: [(String, Data)] = [
                ("header smashed", Data(repeating: 0x41, count: 100) + bytes.dropFirst(100)),
                ("truncated to 100 bytes", bytes.prefix(100)),
                ("truncated to half", bytes.prefix(bytes.count / 2)),
                ("page 2 smashed", bytes.prefix(4096) + Data(repeating: 0xEE, count: 4096) + bytes.dropFirst(8192)),
            ]
            for offset in [1, 7, 99, 1000] { damaged.append(("truncated to \(offset)", bytes.prefix(offset))) }
            for (name, data) in damaged {
                let path = dir.file("damaged.sqlite")
                try? FileManager.default.removeItem(atPath: path)
                try data.write(to: URL(fileURLWithPath: path))
                var failure: SQLiteError?
                do throws(SQLiteError) {
                    let db = try SQLiteConnection(path: path, mode: .readOnly)
                    _ = try db.rows("SELECT * FROM p ORDER BY name")
                    let problems = try db.quickCheck()
                    if problems.isEmpty { Issue.record("\(name): damage went unnoticed") }
                } catch {
                    failure = error
                }
                if let failure {
                    #expect(failure.isCorruption || failure.code == SQLiteError.genericError, "\(name): \(failure)")
                }
            }
        }
    }

    @Test func zeroLengthFileIsAnEmptyDatabase() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("empty.sqlite")
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let db = try SQLiteConnection(path: path)
            #expect(try db.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
        }
    }

    @Test func missingFileReadOnlyCannotOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("absent.sqlite")
            let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: path, mode: .readOnly) }
            #expect(error.code == SQLiteError.cantOpen)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func oversizedValuesThrowTooBigAndInsertNothing() throws {
        let db = try valueTable()
        let limit: Int32 = 1000
        let handle = try #require(db.rawHandle)
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, limit)
        #expect(db.limit(SQLITE_LIMIT_LENGTH) == limit)
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")

        let longText = String(repeating: "é", count: 1000)  // 2000 UTF-8 bytes
        let textError = try #require(throws: SQLiteError.self) { try insert.bind(text: longText, at: 1) }
        #expect(textError.code == SQLiteError.tooBig)
        #expect(textError.sql == "INSERT INTO t(v) VALUES (?)")
        let blobError = try #require(throws: SQLiteError.self) { try insert.run([.blob(Array(repeating: 7, count: 2000))]) }
        #expect(blobError.code == SQLiteError.tooBig)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))

        // The limit covers the whole row record, so stay a little under it.
        try insert.run([.text(String(repeating: "x", count: 900))])
        #expect(try db.scalar("SELECT length(v) FROM t") == .integer(900))

        try db.registerFunction(name: "huge", argumentCount: 0, deterministic: false) {
            _ in .text(String(repeating: "y", count: 5000))
        }
        let functionError = try #require(throws: SQLiteError.self) { try db.execute("INSERT INTO t(v) VALUES (huge())") }
        #expect(functionError.code == SQLiteError.tooBig)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    @Test func nanIsRefusedRatherThanStoredAsNull() throws {
        let db = try valueTable()
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")
        let error = try #require(throws: SQLiteError.self) { try insert.run([.real(.nan)]) }
        #expect(error.code == SQLiteError.mismatch)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func argumentCountMustMatch() throws {
        let db = try valueTable()
        let insert = try db.prepare("INSERT INTO t(id, v) VALUES (?, ?)")
        let tooFew = try #require(throws: SQLiteError.self) { try insert.run([1]) }
        #expect(tooFew.code == SQLiteError.range)
        let outOfRange = try #require(throws: SQLiteError.self) { try insert.bind(int64: 1, at: 3) }
        #expect(outOfRange.code == SQLiteError.range)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(insert.parameterCount == 2)
        let named = try db.prepare("SELECT :a + :b")
        #expect(named.parameterIndex(named: ":b") == 2)
        #expect(named.parameterIndex(named: ":c") == nil)
    }

    @Test func closedConnectionsRefuseWork() throws {
        let db = try valueTable()
        let statement = try db.prepare("SELECT count(*) FROM t")
        let cached = try db.cachedStatement("SELECT 1")
        db.close()
        db.close()
        #expect(!db.isOpen)
        #expect(db.rawHandle == nil)
        let stepError = try #require(throws: SQLiteError.self) { try statement.step() }
        #expect(stepError.code == SQLiteError.misuse)
        #expect(throws: SQLiteError.self) { try cached.step() }
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1") }
        #expect(!db.isInTransaction)
    }

    @Test func pathWithNULIsRejected() throws {
        let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: "/tmp/a\0b.sqlite") }
        #expect(error.code == SQLiteError.cantOpen)
    }
}

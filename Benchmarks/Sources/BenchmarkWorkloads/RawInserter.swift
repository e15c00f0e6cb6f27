import CSQLiteRaw

/// The raw import: what ObjectGraph's save does for an insert-only save, through the C API and nothing else.
/// Per transaction (`BEGIN IMMEDIATE … COMMIT`) it reserves the primary keys in `Z_PRIMARYKEY` (as the store
/// does) and inserts each row with one prepared statement binding every column of `ZPERSON`.
public final class RawInserter {
    let connection: RawConnection
    let insert: RawStatement
    let reserve: RawStatement
    let maximum: RawStatement
    let entityNumber: Int64

    public init(_ connection: RawConnection) throws {
        self.connection = connection
        entityNumber = try connection.int("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
        insert = try connection.prepare("""
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZAVATAR, ZCITY, ZCREATEDAT, ZEMAIL, ZFIRSTNAME, \
            ZLASTNAME, ZNICKNAME, ZPHONE, ZSECTION) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        reserve = try connection.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?")
        maximum = try connection.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
    }

    /// Inserts `rows` in transactions of `batchSize` rows; returns the longest transaction in seconds.
    @discardableResult
    public func insert(_ rows: [PersonRow], batchSize: Int) throws -> Double {
        var longest = 0.0
        var start = 0
        while start < rows.count {
            let end = min(start + batchSize, rows.count)
            let began = Measure.now()
            try connection.exec("BEGIN IMMEDIATE")
            reserve.bind(Int64(end - start), at: 1)
            reserve.bind(entityNumber, at: 2)
            reserve.step()
            reserve.reset()
            maximum.bind(entityNumber, at: 1)
            guard maximum.step() else { throw RawSQLiteError(description: "Z_PRIMARYKEY has no Person row") }
            var key = maximum.int(0) - Int64(end - start) + 1
            maximum.reset()
            for row in rows[start..<end] {
                insert.bind(key, at: 1)
                insert.bind(entityNumber, at: 2)
                insert.bind(row.age, at: 3)
                insert.bindNull(at: 4)
                insert.bind(row.city, at: 5)
                insert.bind(row.createdAt, at: 6)
                insert.bind(row.email, at: 7)
                insert.bind(row.firstName, at: 8)
                insert.bind(row.lastName, at: 9)
                insert.bindNull(at: 10)
                insert.bindNull(at: 11)
                insert.bind(row.section, at: 12)
                if sqlite3_step(insert.handle) != SQLITE_DONE {
                    throw RawSQLiteError(description: "insert: \(String(cString: sqlite3_errmsg(connection.db)))")
                }
                insert.reset()
                key += 1
            }
            try connection.exec("COMMIT")
            longest = max(longest, Double(Measure.now() - began) / 1e9)
            start = end
        }
        return longest
    }
}

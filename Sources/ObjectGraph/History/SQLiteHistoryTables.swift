import Foundation
import SQLiteStorage

/// Core Data's persistent-history tables in an SQLite store, in Apple's layout (`ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING`, entity numbers 16001–16003 in `Z_PRIMARYKEY`), so that stores Apple wrote with history
/// keep working and ours can be read by Core Data.
///
/// What we write, column by column:
/// - `ATRANSACTION`: `Z_PK` (the transaction number, from `Z_PRIMARYKEY` 16002, so never reused after a purge),
///   `ZTIMESTAMP` (seconds since 2001-01-01 UTC), and the author, context name, process ID and bundle ID
///   interned in `ATRANSACTIONSTRING` (the `…TS` columns); the inline text columns stay NULL, as in Apple's files.
/// - `ACHANGE`: `ZCHANGETYPE` (0 insert, 1 update, 2 delete), `ZENTITY` (the concrete entity's number),
///   `ZENTITYPK`, `ZTRANSACTIONID`, and for updates `ZCOLUMNS`: a bit vector, least significant bit first in
///   each byte, bit *i* standing for the entity's *i*-th property — its attributes in model order, then its
///   relationships; NULL when not known. Deletes keep the values of attributes marked
///   ``AttributeDescription/preservesValueInHistoryOnDeletion`` in `ZTOMBSTONE0…`, one column per such
///   attribute of the entity, in attribute order.
enum SQLiteHistoryTables {
    static let changeEntityNumber: Int64 = 16001
    static let transactionEntityNumber: Int64 = 16002
    static let stringEntityNumber: Int64 = 16003
    /// Seconds from 1970 to 2001-01-01, Core Data's reference date.
    static let referenceDateOffset = Date.timeIntervalBetween1970AndReferenceDate

    /// Whether the store file has history tables (Apple's marker of a store opened with history tracking).
    static func exist(_ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
        try connection.tableExists("ATRANSACTION")
    }

    /// Creates the tables, indexes and `Z_PRIMARYKEY` rows that are missing, with at least `tombstoneColumns`
    /// tombstone columns (inside the caller's transaction).
    static func create(_ connection: SQLiteConnection, tombstoneColumns: Int) throws {
        if try !connection.tableExists("ACHANGE") {
            let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
            try connection.execute(
                "CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, "
                    + "ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstones))")
            try connection.execute("CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)")
        } else {
            let existing = try tombstoneColumnCount(connection)
            for index in existing..<max(existing, tombstoneColumns) {
                try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
            }
        }
        if try !connection.tableExists("ATRANSACTION") {
            try connection.execute(
                "CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
                    + "ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, "
                    + "ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, "
                    + "ZQUERYGEN BLOB)")
            for column in ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"] {
                try connection.execute("CREATE INDEX ATRANSACTION_\(column)_INDEX ON ATRANSACTION (\(column))")
            }
            try connection.execute("CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR)")
            try connection.execute("CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP)")
        }
        if try !connection.tableExists("ATRANSACTIONSTRING") {
            try connection.execute(
                "CREATE TABLE ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)")
            try connection.execute("CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME)")
        }
        for (number, name) in [(changeEntityNumber, "CHANGE"), (transactionEntityNumber, "TRANSACTION"),
            (stringEntityNumber, "TRANSACTIONSTRING")]
        {
            try connection.prepare("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
                .run([.integer(number), .text(name)])
        }
    }

    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` has.
    static func tombstoneColumnCount(_ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        try connection.columnNames(ofTable: "ACHANGE").filter { $0.hasPrefix("ZTOMBSTONE") }.count
    }

    /// Moves `Z_MAX` of a history entity on by `count` and returns the first key reserved.
    static func reserveKeys(_ number: Int64, count: Int64, _ connection: SQLiteConnection) throws -> Int64 {
        try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?")
            .run([.integer(count), .integer(number)])
        guard case .integer(let maximum)? = try connection.scalar(
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)])
        else { throw SQLiteError(code: SQLiteError.corrupt, message: "Z_PRIMARYKEY has no row for history entity \(number)") }
        return maximum - count + 1
    }

    /// The key of `text` in `ATRANSACTIONSTRING`, adding it when new; nil for nil.
    static func internedString(_ text: String?, _ connection: SQLiteConnection) throws -> Int64? {
        guard let text else { return nil }
        let lookup = try connection.cachedStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        try lookup.bind([.text(text)])
        defer { lookup.reset() }
        if try lookup.step(), case .integer(let key) = lookup.value(at: 0) { return key }
        lookup.reset()
        let key = try reserveKeys(stringEntityNumber, count: 1, connection)
        try connection.cachedStatement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
            .run([.integer(key), .integer(stringEntityNumber), .text(text)])
        return key
    }

    /// The bit vector of changed properties (attribute indexes, then relationship indexes after the attributes).
    static func columnBits(attributes: IndexBits, relationships: IndexBits, attributeCount: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func set(_ bit: Int) {
            let byte = bit / 8
            if bytes.count <= byte { bytes.append(contentsOf: repeatElement(0, count: byte + 1 - bytes.count)) }
            bytes[byte] |= 1 << UInt8(bit % 8)
        }
        for index in attributes { set(index) }
        for index in relationships { set(attributeCount + index) }
        return bytes
    }

    /// The property names a bit vector stands for in `entity`; unknown bits are skipped.
    static func propertyNames(_ bytes: [UInt8], entity: EntityDescription) -> Set<String> {
        var names: Set<String> = []
        for (byteIndex, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                if index < entity.attributes.count {
                    names.insert(entity.attributes[index].name)
                } else if index - entity.attributes.count < entity.relationships.count {
                    names.insert(entity.relationships[index - entity.attributes.count].name)
                }
            }
        }
        return names
    }

    /// Records a transaction's `ATRANSACTION` row with `author` and `contextName` (and this process), inside the
    /// caller's write transaction, and returns its number: a save's (its changes follow) or a migration's (none).
    static func recordTransaction(author: String?, contextName: String?, _ connection: SQLiteConnection) throws -> Int64 {
        let authorKey = try internedString(author, connection)
        let contextKey = try internedString(contextName, connection)
        let process = try internedString(HistoryProcess.processID, connection)
        let bundle = try internedString(HistoryProcess.bundleID, connection)
        let number = try reserveKeys(transactionEntityNumber, count: 1, connection)
        let optional: (Int64?) -> SQLiteValue = { $0.map(SQLiteValue.integer) ?? .null }
        try connection.cachedStatement(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, "
                + "ZTIMESTAMP) VALUES (?, ?, 1, ?, ?, ?, ?, ?)"
        ).run([.integer(number), .integer(transactionEntityNumber), optional(authorKey), optional(bundle),
            optional(contextKey), optional(process), .real(Date().timeIntervalSinceReferenceDate)])
        return number
    }
}

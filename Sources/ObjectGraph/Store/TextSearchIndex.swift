import Foundation
import SQLiteStorage

/// The text search index of one root table: an FTS5 table with the trigram tokenizer over the case- and
/// diacritic-folded text (``StringFolding/folded(_:)``) of the table's attributes marked
/// ``AttributeDescription/isIndexedBySpotlight``, kept by triggers.
///
/// The table is contentless and keeps neither positions nor columns (`content=''`, `columnsize=0`, `detail=none`):
/// it holds only which rows (`rowid` = `Z_PK`) have which trigrams in any of their indexed attributes, never a
/// copy of the text, so it stays small (a quarter of what it takes with positions and columns). It answers
/// "which rows may contain this folded substring": those with all of its trigrams. Folded `CONTAINS`,
/// `BEGINSWITH`, `ENDSWITH`, `LIKE` and `==` tests then run on those candidates only (see
/// ``FetchPredicate/SQLCompiler``), so answers are the scan's exactly.
///
/// Triggers on the root table keep the index in the same transaction as every insert, update of an indexed
/// column, and delete, whatever writes them: saves, batch requests, imports. New and changed rows go first to a
/// small table of pending rows (``pendingTable``), which the index takes in ``pendingLimit`` at a time: FTS5 pays
/// per commit, so taking rows in by the thousand keeps an import close to its speed without the index. Queries
/// treat every pending row as a candidate. The invariant: a row is pending, or the index holds its current
/// folded values. (A contentless table is told of a deletion with the values it indexed, which the triggers fold
/// again from the old row.) The triggers call
/// `objectgraph_index_fold`, which every store connection registers; another program writing the table fails with
/// "no such function" rather than leaving the index stale. Migration drops the indexes first and builds them
/// again in its transaction; opening a store builds the ones its model asks for and drops the others. A store
/// written by another framework (Core Data) never gets one: its triggers would break that framework's writes.
struct TextSearchIndex: Sendable, Equatable {
    /// The root table (`ZPERSON`).
    let table: String
    /// The FTS5 table (`ZPERSON_TEXTINDEX`).
    let name: String
    /// The indexed columns of ``table``, sorted; the FTS table's columns have the same names.
    let columns: [String]

    /// The SQL function that folds text for the index: ``StringFolding/folded(_:)``, with U+0000 (where FTS5 stops
    /// reading) as U+FFFD; registered on every store connection by ``PredicateSQLFunctions/register(on:)``.
    static let foldFunctionName = "objectgraph_index_fold"

    /// The suffix of every text index table's name; its pending table adds `_PENDING`, its triggers `_INSERT`,
    /// `_UPDATE`, `_DELETE` and `_FLUSH`.
    static let suffix = "_TEXTINDEX"

    /// The text indexes a store of `model` has: one per root table with an indexed stored string attribute
    /// (the whole inheritance tree's attributes share their root's index).
    static func expected(model: ManagedObjectModel, layouts: [String: TableLayout]) -> [TextSearchIndex] {
        var result: [TextSearchIndex] = []
        for root in model.entities where root.parentEntityName == nil {
            guard let layout = layouts[root.name] else { continue }
            let stored = Set(layout.tableColumns.map(\.name))
            var columns: Set<String> = []
            for entity in model.entityAndDescendants(of: root) {
                for attribute in entity.attributes where attribute.isIndexedBySpotlight && !attribute.isTransient
                    && attribute.attributeType == .string && stored.contains(attribute.columnName)
                {
                    columns.insert(attribute.columnName)
                }
            }
            guard !columns.isEmpty else { continue }
            result.append(TextSearchIndex(table: layout.tableName, name: layout.tableName + suffix,
                columns: columns.sorted()))
        }
        return result.sorted { $0.name < $1.name }
    }

    // MARK: Statements

    /// `CREATE VIRTUAL TABLE …`, as `sqlite_master` keeps it.
    var createSQL: String {
        "CREATE VIRTUAL TABLE \(name) USING fts5(" + columns.joined(separator: ", ")
            + ", content='', columnsize=0, detail=none, tokenize='trigram case_sensitive 1')"
    }

    /// The table of rows written since the index last took them in (`ZPERSON_TEXTINDEX_PENDING`).
    var pendingTable: String { name + "_PENDING" }

    /// `CREATE TABLE …` of ``pendingTable``.
    var createPendingSQL: String { "CREATE TABLE \(pendingTable) (Z_PK INTEGER PRIMARY KEY)" }

    /// How many pending rows make the index take them in. FTS5 writes a segment at every commit that changed
    /// it, which costs far more per row for a few rows than for many (an import saving every 1000 people took 2.9×
    /// as long with the index written at each save); pending rows cost queries an exact test each.
    static let pendingLimit = 8192

    /// Whether the row `row.Z_PK` (`old`) is not pending, so the index holds its values.
    private func isIndexed(_ row: String) -> String {
        "NOT EXISTS (SELECT 1 FROM \(pendingTable) WHERE Z_PK = \(row).Z_PK)"
    }

    /// Tells the index that the row `old` (its values as indexed) is gone, unless it is pending.
    private var forgetOldRow: String {
        "INSERT INTO \(name) (\(name), rowid, " + columns.joined(separator: ", ") + ") SELECT 'delete', old.Z_PK, "
            + columns.map { "\(Self.foldFunctionName)(old.\($0))" }.joined(separator: ", ") + " WHERE "
            + isIndexed("old") + ";"
    }

    /// Takes every pending row into the index and empties the pending table.
    var flushSQL: String {
        "INSERT INTO \(name) (rowid, " + columns.joined(separator: ", ") + ") SELECT t.Z_PK, "
            + columns.map { "\(Self.foldFunctionName)(t.\($0))" }.joined(separator: ", ") + " FROM \(pendingTable) p "
            + "JOIN \(table) t ON t.Z_PK = p.Z_PK; DELETE FROM \(pendingTable);"
    }

    /// The triggers that keep the index, by name, as `sqlite_master` keeps them. A row inserted, or updated in an
    /// indexed column, becomes pending (an updated one is first taken out of the index with its old values); a
    /// deleted one leaves the index or the pending rows; and every 256th pending key checks whether
    /// ``pendingLimit`` rows are pending, and if so takes them all in.
    var triggers: [(name: String, sql: String)] {
        let pend = "INSERT OR IGNORE INTO \(pendingTable) (Z_PK) VALUES (new.Z_PK);"
        return [
            (name + "_INSERT", "CREATE TRIGGER \(name)_INSERT AFTER INSERT ON \(table) BEGIN " + pend + " END"),
            (name + "_UPDATE", "CREATE TRIGGER \(name)_UPDATE AFTER UPDATE OF " + columns.joined(separator: ", ")
                + " ON \(table) BEGIN " + forgetOldRow + " " + pend + " END"),
            (name + "_DELETE", "CREATE TRIGGER \(name)_DELETE AFTER DELETE ON \(table) BEGIN " + forgetOldRow
                + " DELETE FROM \(pendingTable) WHERE Z_PK = old.Z_PK; END"),
            (name + "_FLUSH", "CREATE TRIGGER \(name)_FLUSH AFTER INSERT ON \(pendingTable) WHEN new.Z_PK % 256 = 0 "
                + "AND (SELECT count(*) FROM \(pendingTable)) >= \(Self.pendingLimit) BEGIN " + flushSQL + " END"),
        ]
    }

    /// Fills the (new, empty) index from every row of the table.
    private var fillSQL: String {
        "INSERT INTO \(name) (rowid, " + columns.joined(separator: ", ") + ") SELECT Z_PK, "
            + columns.map { "\(Self.foldFunctionName)(\($0))" }.joined(separator: ", ") + " FROM \(table)"
    }

    /// `substring` (folded) as the index holds text (U+0000, where FTS5 stops reading, as U+FFFD), when it is
    /// long enough for the index to find: three characters or more.
    static func searchable(_ substring: String) -> String? {
        let scalars = substring.unicodeScalars
        guard scalars.count >= 3 else { return nil }
        return scalars.contains("\u{0}") ? substring.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : substring
    }

    /// The FTS5 query that finds the rows whose indexed text contains every trigram of every one of `substrings`
    /// (each already folded and at least three characters long): `"ber" AND "erl" AND "rli" AND "lin"`. The index
    /// keeps no positions and no columns (`detail=none`), so this finds a superset of the rows that contain the
    /// substrings in the attribute asked about; the exact test that follows removes the others.
    static func matchQuery(substrings: [String]) -> String {
        var trigrams: [String] = []
        var seen: Set<String> = []
        for substring in substrings {
            let scalars = Array(substring.unicodeScalars)
            guard scalars.count >= 3 else { continue }
            for start in 0...(scalars.count - 3) {
                var trigram = String.UnicodeScalarView()
                trigram.append(contentsOf: scalars[start..<start + 3])
                let text = String(trigram)
                if seen.insert(text).inserted { trigrams.append(text) }
            }
        }
        // A few trigrams narrow the candidates as well as all of them; more only make the lookup slower.
        return trigrams.prefix(maximumTrigrams).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            .joined(separator: " AND ")
    }

    /// How many trigrams of a pattern a query looks up at most.
    static let maximumTrigrams = 12

    // MARK: Keeping the file in line

    /// The text indexes, their pending tables and triggers the file has: name → SQL of each.
    private static func present(_ connection: SQLiteConnection) throws(SQLiteError)
        -> (tables: [String: String], triggers: [String: String])
    {
        var tables: [String: String] = [:]
        var triggers: [String: String] = [:]
        for row in try connection.rows("SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'trigger') "
            + "AND name GLOB '*\(suffix)*' AND sql IS NOT NULL")
        {
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let sql) = row[2] else {
                continue
            }
            if type == "trigger", ["_INSERT", "_UPDATE", "_DELETE", "_FLUSH"].contains(where: { name.hasSuffix(suffix + $0) }) {
                triggers[name] = sql
            } else if type == "table", name.hasSuffix(suffix) && sql.hasPrefix("CREATE VIRTUAL TABLE")
                || name.hasSuffix(suffix + "_PENDING")
            {
                tables[name] = sql
            }
        }
        return (tables, triggers)
    }

    /// The ones of `expected` that the file has exactly as expected (tables and triggers), so queries may use them.
    static func available(_ connection: SQLiteConnection, expected: [TextSearchIndex]) throws(SQLiteError)
        -> [TextSearchIndex]
    {
        guard try isSupported(connection) else { return [] }
        let (tables, triggers) = try present(connection)
        return expected.filter { index in
            tables[index.name] == index.createSQL && tables[index.pendingTable] == index.createPendingSQL
                && index.triggers.allSatisfy { triggers[$0.name] == $0.sql }
        }
    }

    /// Whether the SQLite library has FTS5 (built in, as in the system's 3.40.1).
    static func isSupported(_ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
        try connection.scalar("SELECT sqlite_compileoption_used('ENABLE_FTS5')") == .integer(1)
    }

    /// The index a table or trigger belongs to: its name up to the suffix.
    private static func owner(_ name: String) -> String {
        guard let range = name.range(of: suffix, options: .backwards) else { return name }
        return String(name[..<range.upperBound])
    }

    /// Whether the file has text indexes or triggers other than `expected` (left over from a model that had them).
    static func hasOthers(_ connection: SQLiteConnection, than expected: [TextSearchIndex]) throws(SQLiteError) -> Bool {
        let (tables, triggers) = try present(connection)
        let names = Set(expected.flatMap { [$0.name, $0.pendingTable] })
        let triggerNames = Set(expected.flatMap { $0.triggers.map(\.name) })
        return !Set(tables.keys).isSubset(of: names) || !Set(triggers.keys).isSubset(of: triggerNames)
    }

    /// Drops every text index of the file that is not one of `expected` (or differs from it), and creates and
    /// fills the expected ones the file lacks, inside the caller's transaction.
    ///
    /// - Returns: the names of the indexes built.
    @discardableResult
    static func reconcile(_ connection: SQLiteConnection, expected: [TextSearchIndex]) throws(SQLiteError)
        -> [String]
    {
        // Without FTS5 in the SQLite library there is no index: queries scan, as for attributes without one.
        let expected = try isSupported(connection) ? expected : []
        let (tables, triggers) = try present(connection)
        let intact = Set(try available(connection, expected: expected).map(\.name))
        for trigger in triggers.keys.sorted() where !intact.contains(owner(trigger)) {
            try connection.execute("DROP TRIGGER \(SQLiteConnection.quoteIdentifier(trigger))")
        }
        for table in tables.keys.sorted() where !intact.contains(owner(table)) {
            try connection.execute("DROP TABLE \(SQLiteConnection.quoteIdentifier(table))")
        }
        var built: [String] = []
        let missing = expected.filter { !intact.contains($0.name) }
        // (Each index an equal part of the progress someone follows, if anyone does: its table filled range by range.)
        let parts = missing.isEmpty ? [] : StoreOpeningProgress.split(missing.map { _ in 1 })
        for (index, part) in zip(missing, parts) {
            try connection.execute(index.createSQL)
            try connection.execute(index.createPendingSQL)
            try KeyRangeFill.run(connection, sql: index.fillSQL, sourceTable: index.table, keyColumn: "Z_PK",
                hasWhere: false, progress: part)
            for trigger in index.triggers { try connection.execute(trigger.sql) }
            built.append(index.name)
        }
        return built
    }

    /// Takes the pending rows of every index in `indexes` in now (inside the caller's transaction).
    static func flush(_ connection: SQLiteConnection, _ indexes: [TextSearchIndex]) throws(SQLiteError) {
        for index in indexes { try connection.execute(index.flushSQL) }
    }

    /// Drops every text index of the file and its triggers (a migration does, before it rebuilds tables).
    static func dropAll(_ connection: SQLiteConnection) throws(SQLiteError) {
        try reconcile(connection, expected: [])
    }
}

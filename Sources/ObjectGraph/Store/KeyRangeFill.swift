import Foundation
import SQLiteStorage

/// Runs an `INSERT … SELECT` that copies a whole table — a migration filling a table from its old one, a text
/// index built for every row — in ranges of the source's primary keys when someone follows the work through
/// Foundation's `Progress` (see ``StoreOpeningProgress``), so that a million rows report their progress range by
/// range. Each range is one statement inside the caller's transaction: the result is the same rows as one
/// statement gives. Without a progress it runs as one statement.
enum KeyRangeFill {
    /// At most this many ranges (about one per percent).
    static let maximumRanges: Int64 = 100
    /// At least this many rows per range.
    static let minimumRowsPerRange: Int64 = 1_000

    /// Runs `sql` (binding `values`), whose rows come from `sourceTable` under the key expression `keyColumn`
    /// (`old.Z_PK`, `Z_PK`); `hasWhere` says whether the statement already has a `WHERE` clause.
    ///
    /// `progress` is told the fraction of the rows done after each range; `range` the rows done and the total
    /// (for tests).
    static func run(
        _ connection: SQLiteConnection, sql: String, values: [SQLiteValue] = [], sourceTable: String,
        keyColumn: String, hasWhere: Bool, progress: StoreOpeningProgress?, range: (Int64, Int64) -> Void = { _, _ in }
    ) throws(SQLiteError) {
        guard let progress else {
            try connection.prepare(sql).run(values)
            return
        }
        let bounds = try connection.rows("SELECT min(Z_PK), max(Z_PK), count(*) FROM \(sourceTable)").first ?? []
        guard bounds.count == 3, case .integer(let low) = bounds[0], case .integer(let high) = bounds[1],
            case .integer(let count) = bounds[2], count > 0, high >= low
        else {
            try connection.prepare(sql).run(values)
            return
        }
        let ranges = max(1, min(maximumRanges, count / minimumRowsPerRange))
        // Keys split evenly between the lowest and the highest (the last range takes what the division leaves).
        let span = high - low + 1
        let statement = try connection.prepare(sql + (hasWhere ? " AND " : " WHERE ") + "\(keyColumn) BETWEEN ? AND ?")
        var start = low
        for number in 1...ranges {
            let end = number == ranges ? high : low + span / ranges * number - 1
            guard end >= start else { continue }
            try statement.run(values + [.integer(start), .integer(end)])
            // (Rows done measured by keys passed: the statement may leave some rows out, and keys are dense.)
            let done = number == ranges ? count : min(count, count * (end - low + 1) / span)
            progress.report(Double(done) / Double(count))
            range(done, count)
            start = end + 1
        }
    }
}

import Foundation
import ObjectGraph

/// Brings the folded-text columns (``PostgresSchema/foldedColumn(_:)``) of a PostgreSQL store's tables up to date:
/// a database made before they existed (or a migration whose source lacked some) gets each missing column added
/// and filled with ``StringFolding/folded(_:)`` of the values already stored, computed here in Swift (the server
/// has no such function), in the caller's transaction, so that no client ever sees a column only partly filled.
///
/// Every write of a row writes the folded text with the value from then on (`PostgresStore+Saving.swift`), so a
/// column, once added, stays right as long as every client of the database runs an ObjectGraph that knows of it.
enum PostgresFoldedColumns {
    /// One table's folded-text columns that are missing.
    struct Missing {
        let entity: EntityDescription
        /// The string attributes whose folded-text column is missing, with that column (quoted).
        let columns: [(attribute: AttributeDescription, column: String)]
    }

    /// How many rows a fill reads and writes back per statement.
    static let fillBatchSize = 20_000

    /// The folded-text columns that the concrete entities of `model` need and their tables (in the connection's
    /// current schema) lack, table by table, from one read of `information_schema`. A table that does not exist
    /// lacks all of its columns.
    static func missing(in model: ManagedObjectModel, on connection: PostgresConnection) throws(ObjectGraphError)
        -> [Missing]
    {
        let present = try connection.execute(#"SELECT table_name, column_name FROM information_schema.columns "#
            + #"WHERE table_schema = current_schema() AND column_name LIKE '%$F'"#)
        var existing: Set<String> = []
        for row in present {
            guard row.count >= 2, let table = row[0], let column = row[1] else { continue }
            existing.insert(table + "\u{0}" + column)
        }
        var result: [Missing] = []
        for entity in model.entities where !entity.isAbstract {
            let table = "Z" + entity.name.uppercased()
            let lacking = PostgresSchema.foldedColumns(entity).filter { !existing.contains(table + "\u{0}" + $0.name) }
            guard !lacking.isEmpty else { continue }
            result.append(Missing(entity: entity, columns: lacking.map { ($0.attribute, $0.column) }))
        }
        return result
    }

    /// Adds the `missing` columns and fills them from the stored values, table by table: the rows that have a value
    /// in one of them are read ``fillBatchSize`` at a time by key, folded here, and written back with one
    /// `UPDATE … FROM unnest(…)` per batch. Call inside a transaction that holds the writers' lock (so that no
    /// save writes meanwhile, and a failure or crash leaves no column behind).
    static func add(_ missing: [Missing], on connection: PostgresConnection) throws(ObjectGraphError) {
        for table in missing {
            let name = PostgresSchema.table(table.entity)
            try connection.execute("ALTER TABLE \(name) "
                + table.columns.map { "ADD COLUMN IF NOT EXISTS \($0.column) text COLLATE \"C\"" }
                    .joined(separator: ", "))
            try fill(table, on: connection)
        }
    }

    /// Writes the folded text of every stored value of `table`'s attributes into their folded-text columns.
    private static func fill(_ table: Missing, on connection: PostgresConnection) throws(ObjectGraphError) {
        let name = PostgresSchema.table(table.entity)
        let values = table.columns.map { PostgresSchema.column($0.attribute) }
        let anyValue = values.map { "\($0) IS NOT NULL" }.joined(separator: " OR ")
        let read = "SELECT \"Z_PK\", \(values.joined(separator: ", ")) FROM \(name) WHERE \"Z_PK\" > $1 "
            + "AND (\(anyValue)) ORDER BY \"Z_PK\" LIMIT \(fillBatchSize)"
        let names = table.columns.indices.map { "f\($0)" }
        let arrays = table.columns.indices.map { "$\($0 + 2)::text[]" }
        let write = "UPDATE \(name) AS t SET "
            + zip(table.columns, names).map { "\($0.column) = u.\($1)" }.joined(separator: ", ")
            + " FROM unnest($1::bigint[], \(arrays.joined(separator: ", "))) AS u(k, \(names.joined(separator: ", "))) "
            + "WHERE t.\"Z_PK\" = u.k"
        var after: Int64 = .min
        while true {
            let rows = try connection.execute(read, [String(after)])
            var keys: [Int64] = []
            keys.reserveCapacity(rows.count)
            var folded = [[String?]](repeating: [], count: table.columns.count)
            for row in rows {
                guard let key = row.first.flatMap({ $0 }).flatMap({ Int64($0) }) else { continue }
                keys.append(key)
                for slot in table.columns.indices {
                    let text = row.indices.contains(slot + 1) ? row[slot + 1] : nil
                    folded[slot].append(PostgresSchema.foldedText(PostgresValueCoding.decode(text, as: .string)))
                }
            }
            if !keys.isEmpty {
                try connection.execute(write, [PostgresSQL.integerArray(keys)] + folded.map { PostgresSQL.textArray(nullable: $0) })
            }
            guard rows.count == fillBatchSize, let last = keys.last else { break }
            after = last
        }
    }
}

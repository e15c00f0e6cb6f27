import SQLiteStorage

/// The indexes an SQLite store of a model has, as Core Data writes them, and how to bring a file's indexes in
/// line with them.
///
/// Per root table: `Z<ROOT>_Z_ENT_INDEX` and one index per integer column that is not an attribute (foreign
/// keys, their entity columns and order columns); per entity: one index per fetch index
/// (`Z_<Entity>_<name>`) and one unique index per uniqueness constraint (`Z_<Entity>_UNIQUE_<a>_<b>`); per
/// join table: an index on its destination column; per column of an attribute that allows external storage, a
/// partial index of the rows naming a file (`Z<ROOT>_<COLUMN>_EXTERNAL_INDEX`, ObjectGraph's own). Indexes are
/// not part of the entity version hashes, so a model version that only adds or removes indexes needs no
/// migration: the store reconciles them on open.
enum StoreIndexes {
    /// Every index a store of `model` has, by name, with its `CREATE INDEX` statement.
    static func expected(
        model: ManagedObjectModel, layouts: [String: TableLayout], joinTables: [String: JoinTable]
    ) -> [(name: String, sql: String)] {
        var result: [(name: String, sql: String)] = []
        for entity in model.entities.sorted(by: { model.entityNumber(of: $0) < model.entityNumber(of: $1) }) {
            guard let layout = layouts[entity.name] else { continue }
            if entity.parentEntityName == nil {
                let table = layout.tableName
                result.append(("\(table)_Z_ENT_INDEX", "CREATE INDEX \(table)_Z_ENT_INDEX ON \(table) (Z_ENT)"))
                let attributeColumns = Set(model.entityAndDescendants(of: entity).flatMap {
                    $0.attributes.filter { !$0.isTransient }.map(\.columnName)
                })
                for column in layout.tableColumns where column.sqlType == "INTEGER"
                    && !attributeColumns.contains(column.name)
                {
                    let name = "\(table)_\(column.name)_INDEX"
                    result.append((name, "CREATE INDEX \(name) ON \(table) (\(column.name))"))
                }
            }
            for index in entity.fetchIndexes {
                if let statement = indexStatement(layout, name: "Z_\(entity.name)_\(index.name)", unique: false,
                    elements: index.elements.map { ($0.property, $0.ascending) })
                {
                    result.append(statement)
                }
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                if let statement = indexStatement(layout,
                    name: "Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"), unique: true,
                    elements: constraint.map { ($0, true) })
                {
                    result.append(statement)
                }
            }
        }
        for table in joinTables.values.filter(\.isOwner).sorted(by: { $0.name < $1.name }) {
            result.append(table.indexSQL)
        }
        // ObjectGraph's own: the rows that name external files, so finding orphaned files reads only those.
        result += ExternalBinaryStorage.indexes(layouts)
        return result
    }

    /// A fetch index or uniqueness constraint, written as Core Data writes it; nil when it names no stored
    /// attribute (relationship and unknown names are skipped; the model checked them).
    private static func indexStatement(
        _ layout: TableLayout, name: String, unique: Bool, elements: [(property: String, ascending: Bool)]
    ) -> (name: String, sql: String)? {
        let columns = elements.compactMap { element in
            layout.column(forKey: element.property).map { "\($0) COLLATE BINARY \(element.ascending ? "ASC" : "DESC")" }
        }
        guard !columns.isEmpty else { return nil }
        return (name, "CREATE \(unique ? "UNIQUE " : "")INDEX \(SQLiteConnection.quoteIdentifier(name)) ON "
            + "\(layout.tableName) (" + columns.joined(separator: ", ") + ")")
    }

    /// The persistent-history tables (see ``SQLiteHistoryTables``), whose indexes are not the model's.
    static let historyTables: Set<String> = ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]

    /// The indexes of the file that are not expected (or differ), to drop, and the expected ones it lacks;
    /// indexes of the persistent-history tables are neither.
    static func differences(_ connection: SQLiteConnection, expected: [(name: String, sql: String)])
        throws(SQLiteError) -> (drop: [String], create: [(name: String, sql: String)])
    {
        var present: [String: String] = [:]
        for row in try connection.rows(
            "SELECT name, sql, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        {
            // Indexes of tables that are not the model's (persistent history, Z_PRIMARYKEY) are left alone.
            guard case .text(let name) = row[0], case .text(let sql) = row[1], case .text(let table) = row[2],
                !historyTables.contains(table)
            else { continue }
            present[name] = sql
        }
        let wanted = Dictionary(expected.map { ($0.name, $0.sql) }) { first, _ in first }
        let drop = present.filter { wanted[$0.key] != $0.value }.keys.sorted()
        let create = expected.filter { present[$0.name] != $0.sql }
        return (drop, create)
    }

    /// Drops the file's unexpected indexes and creates the missing ones (inside the caller's transaction).
    ///
    /// - Returns: the indexes created.
    @discardableResult
    static func reconcile(_ connection: SQLiteConnection, expected: [(name: String, sql: String)])
        throws(SQLiteError) -> [String]
    {
        let (drop, create) = try differences(connection, expected: expected)
        for name in drop { try connection.execute("DROP INDEX \(SQLiteConnection.quoteIdentifier(name))") }
        for index in create { try connection.execute(index.sql) }
        return create.map(\.name)
    }
}

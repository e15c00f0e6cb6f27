import SQLiteStorage

/// Whether an SQLite file's schema is a model's, structurally: the check that decides compatibility when the
/// store's metadata holds entity version hashes ObjectGraph cannot reproduce (Core Data's own; its hash recipe
/// is not public, see `apple-file-formats.md` §3).
///
/// Compared, in this order, and the first difference named:
/// - `Z_PRIMARYKEY`: every entity of the model by name, with the same superentity (`Z_SUPER`), and no entity
///   the model lacks (persistent-history and other framework entities, numbered 16000 and up, aside);
/// - per root entity, its table `Z<ROOT>`: `Z_PK`, `Z_ENT`, `Z_OPT` and exactly the columns the model gives it
///   (attributes, to-one foreign keys and their `Z<n>_` entity columns, `Z_FOK_` ordering columns), each with
///   the declared type Core Data writes (`INTEGER`, `FLOAT`, `DECIMAL`, `TIMESTAMP`, `VARCHAR`, `BLOB`);
/// - every many-to-many join table, with its two key columns and its ordering columns.
///
/// Indexes and triggers are not compared: they are not part of a model version's identity.
enum StoreStructure {
    /// Entity numbers from here on belong to the framework (history: 16001–16003), not to the model.
    static let frameworkEntityNumbers: Int64 = 16000

    /// The first way the file open on `connection` differs from `model` (whose entity numbers must be the
    /// file's, as ``SQLiteStore`` arranges), or nil when it has the model's structure.
    static func firstDifference(
        _ connection: SQLiteConnection, model: ManagedObjectModel, layouts: [String: TableLayout],
        joinTables: [String: JoinTable]
    ) throws(SQLiteError) -> String? {
        if let difference = try entityDifference(connection, model: model) { return difference }
        for entity in model.entities.sorted(by: { model.entityNumber(of: $0) < model.entityNumber(of: $1) })
        where entity.parentEntityName == nil {
            guard let layout = layouts[entity.name] else { continue }
            let expected = [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")]
                + layout.tableColumns.map { ($0.name, $0.sqlType) }
            if let difference = try tableDifference(connection, table: layout.tableName, expected: expected,
                owner: "entity \(entity.name)")
            {
                return difference
            }
        }
        for table in joinTables.values.filter(\.isOwner).sorted(by: { $0.name < $1.name }) {
            let expected = [(table.ownColumn, "INTEGER"), (table.otherColumn, "INTEGER")]
                + table.allOrderColumns.map { ($0, "INTEGER") }
            if let difference = try tableDifference(connection, table: table.name, expected: expected,
                owner: "a many-to-many relationship")
            {
                return difference
            }
        }
        return nil
    }

    /// Compares `Z_PRIMARYKEY`'s entity names and superentities with the model's.
    private static func entityDifference(_ connection: SQLiteConnection, model: ManagedObjectModel)
        throws(SQLiteError) -> String?
    {
        guard try connection.tableExists("Z_PRIMARYKEY") else { return "the store has no Z_PRIMARYKEY table" }
        var names: [Int64: String] = [:]
        var supers: [String: Int64] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
            guard row.count == 3, case .integer(let number) = row[0], number < frameworkEntityNumbers,
                case .text(let name) = row[1]
            else { continue }
            names[number] = name
            if case .integer(let parent) = row[2] { supers[name] = parent } else { supers[name] = 0 }
        }
        for entity in model.entities.sorted(by: { model.entityNumber(of: $0) < model.entityNumber(of: $1) }) {
            guard let parentNumber = supers[entity.name] else {
                return "Z_PRIMARYKEY has no entity \(entity.name)"
            }
            let storeParent = parentNumber == 0 ? nil : (names[parentNumber] ?? "entity number \(parentNumber)")
            if storeParent != entity.parentEntityName {
                return "entity \(entity.name) has superentity \(storeParent ?? "none") in Z_PRIMARYKEY, "
                    + "\(entity.parentEntityName ?? "none") in the model"
            }
        }
        if let extra = names.sorted(by: { $0.key < $1.key }).first(where: { model.entity(named: $0.value) == nil }) {
            return "Z_PRIMARYKEY has entity \(extra.value) (number \(extra.key)), which the model does not have"
        }
        return nil
    }

    /// Compares one table's columns (names and declared types) with `expected`, in the expected order.
    private static func tableDifference(
        _ connection: SQLiteConnection, table: String, expected: [(name: String, type: String)], owner: String
    ) throws(SQLiteError) -> String? {
        guard try connection.tableExists(table) else { return "the store has no table \(table) (for \(owner))" }
        var present: [String: String] = [:]
        var order: [String] = []
        for row in try connection.rows("PRAGMA table_info(\(SQLiteConnection.quoteIdentifier(table)))") {
            guard row.count > 2, case .text(let name) = row[1] else { continue }
            var type = ""
            if case .text(let declared) = row[2] { type = declared }
            present[name.uppercased()] = type.uppercased()
            order.append(name)
        }
        for column in expected {
            guard let type = present[column.name.uppercased()] else {
                return "table \(table) has no column \(column.name) (for \(owner))"
            }
            if type != column.type.uppercased() {
                return "column \(table).\(column.name) is \(type.isEmpty ? "untyped" : type) in the store, "
                    + "\(column.type) for the model"
            }
        }
        let wanted = Set(expected.map { $0.name.uppercased() })
        if let extra = order.first(where: { !wanted.contains($0.uppercased()) }) {
            return "table \(table) has column \(extra), which the model does not have (for \(owner))"
        }
        return nil
    }
}

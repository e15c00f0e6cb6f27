import SQLiteStorage

/// How one entity maps onto its SQLite table, following Core Data's layout: table `Z<ENTITY>`, columns
/// `Z_PK`, `Z_ENT`, `Z_OPT`, then `Z<ATTRIBUTE>` columns grouped integers, reals, text, blobs.
struct TableLayout: Sendable {
    let entity: EntityDescription
    let entityNumber: Int
    /// Persistent attributes in column order, with their column names.
    let columns: [(attributeIndex: Int, name: String)]

    init(entity: EntityDescription, entityNumber: Int) {
        self.entity = entity
        self.entityNumber = entityNumber
        let persistent = entity.persistentAttributeIndexes.enumerated().map { (order: $0.offset, index: $0.element) }
        columns = persistent.sorted { lhs, rhs in
            let lhsGroup = entity.attributes[lhs.index].attributeType.columnGroup
            let rhsGroup = entity.attributes[rhs.index].attributeType.columnGroup
            return lhsGroup != rhsGroup ? lhsGroup < rhsGroup : lhs.order < rhs.order
        }.map { ($0.index, entity.attributes[$0.index].columnName) }
    }

    var tableName: String { entity.tableName }

    /// `CREATE TABLE`, written as Core Data writes it.
    var createTableSQL: String {
        let definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            + columns.map { "\($0.name) \(entity.attributes[$0.attributeIndex].attributeType.sqlColumnType)" }
        return "CREATE TABLE \(tableName) ( " + definitions.joined(separator: ", ") + " )"
    }

    /// The select list a fetch reads: `Z_PK, Z_OPT`, then the attribute columns.
    var selectList: String { (["Z_PK", "Z_OPT"] + columns.map(\.name)).joined(separator: ", ") }

    var insertSQL: String {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.name)
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO \(tableName) (" + names.joined(separator: ", ") + ") VALUES (\(marks))"
    }

    var updateSQL: String {
        let assignments = ["Z_OPT = Z_OPT + 1"] + columns.map { "\($0.name) = ?" }
        return "UPDATE \(tableName) SET " + assignments.joined(separator: ", ") + " WHERE Z_PK = ? AND Z_OPT = ?"
    }

    var deleteSQL: String { "DELETE FROM \(tableName) WHERE Z_PK = ? AND Z_OPT = ?" }

    /// The column for an attribute key, for predicates and sort criteria; nil for unknown or transient keys.
    func column(forKey key: String) -> String? {
        guard let index = entity.attributeIndex(named: key), !entity.attributes[index].isTransient else { return nil }
        return entity.attributes[index].columnName
    }

    /// Reads one row (`Z_PK, Z_OPT, columns…`) from a statement positioned on it.
    func snapshot(from statement: SQLiteStatement, storeIdentifier: String) -> RowSnapshot {
        var values = [AttributeValue](repeating: .null, count: entity.attributes.count)
        for (offset, column) in columns.enumerated() {
            let type = entity.attributes[column.attributeIndex].attributeType
            values[column.attributeIndex] = AttributeValue(sqliteValue: statement.value(at: Int32(offset + 2)), type: type)
        }
        let id = ManagedObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: statement.int64(at: 0))
        return RowSnapshot(objectID: id, values: values, version: statement.int64(at: 1))
    }
}

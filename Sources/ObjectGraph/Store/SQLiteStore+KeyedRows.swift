import SQLiteStorage

extension SQLiteStore {
    /// IDs and the columns of `keys` only, with the fetch's `WHERE` and `ORDER BY`: an ID-only fetch reads
    /// `Z_PK` (and `Z_ENT` when the table holds several entities), which SQLite can answer from an index that
    /// covers the sort, and no row is decoded.
    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow] {
        let layout = try layout(of: entity)
        var columns: [(name: String, type: AttributeType)?] = []
        for key in keys {
            guard let index = entity.attributeIndex(named: key), let column = layout.column(forKey: key) else {
                columns.append(nil)
                continue
            }
            columns.append((column, entity.attributes[index].attributeType))
        }
        let alias = Self.rowAlias
        let singleEntity = layout.entityNumbersWithDescendants.count == 1 || !includesSubentities
        let selected = ["\(alias).Z_PK"] + (singleEntity ? [] : ["\(alias).Z_ENT"])
            + columns.compactMap { $0.map { "\(alias).\($0.name)" } }
        let (sql, bindings) = try selectSQL(selected.joined(separator: ", "), layout, predicate, sortCriteria,
            limit: limit, offset: offset, includesSubentities: includesSubentities)
        let namespaces = idNamespaces
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                let statement = try Self.fetchStatement(sql, bindings, on: connection)
                var rows: [KeyedRow] = []
                var lastNumber = layout.entityNumber
                var lastNamespace = namespaces.namespace(entityName: entity.name)
                while try statement.step() {
                    if !singleEntity {
                        let number = Int(statement.int64(at: 1))
                        if number != lastNumber, let concrete = self.layout(forEntityNumber: number) {
                            lastNumber = number
                            lastNamespace = namespaces.namespace(entityNumber: number)
                                ?? namespaces.namespace(entityName: concrete.entity.name)
                        }
                    }
                    var values: [AttributeValue] = []
                    if !columns.isEmpty {
                        values.reserveCapacity(columns.count)
                        var position: Int32 = singleEntity ? 1 : 2
                        for column in columns {
                            guard let column else {
                                values.append(.null)
                                continue
                            }
                            values.append(AttributeValue(sqliteValue: statement.value(at: position), type: column.type))
                            position += 1
                        }
                    }
                    rows.append(KeyedRow(
                        objectID: ManagedObjectID(namespace: lastNamespace, key: statement.int64(at: 0)),
                        values: values))
                }
                return rows
            }
        }
    }
}

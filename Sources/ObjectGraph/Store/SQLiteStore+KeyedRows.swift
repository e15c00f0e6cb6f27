import SQLiteStorage

extension SQLiteStore {
    /// IDs and the columns of `keys` only, with the fetch's `WHERE` and `ORDER BY`: an ID-only fetch reads
    /// `Z_PK` (and `Z_ENT` when the table holds several entities), which SQLite can answer from an index that
    /// covers the sort, and no row is decoded.
    func fetchKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool, model: ManagedObjectModel
    ) throws(ObjectGraphError) -> [KeyedRow] {
        var rows: [KeyedRow] = []
        try readKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys, limit: limit,
            offset: offset, includesSubentities: includesSubentities)
        { id, values throws(ObjectGraphError) in
            rows.append(KeyedRow(objectID: id, values: values))
        }
        return rows
    }

    /// The same rows streamed: one values array serves every row, so reading a million rows allocates
    /// nothing per row.
    func visitKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        includesSubentities: Bool, model: ManagedObjectModel,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
        try readKeyedRows(entity: entity, predicate: predicate, sortCriteria: sortCriteria, keys: keys, limit: 0,
            offset: 0, includesSubentities: includesSubentities, visit: visit)
    }

    /// Steps the keyed query, handing each row's ID and values to `visit`. One values array is emptied and
    /// refilled for each row; a visitor that keeps it makes the next row start a buffer of its own.
    private func readKeyedRows(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], keys: [String],
        limit: Int, offset: Int, includesSubentities: Bool,
        visit: (ManagedObjectID, [AttributeValue]) throws(ObjectGraphError) -> Void
    ) throws(ObjectGraphError) {
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
        // A background fetch's query stops as soon as the fetch is cancelled (a filter typed over).
        let ticket = FetchCancellation.ticket
        try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                let checkEvery: Int32 = ticket == nil ? 0 : 10_000
                try connection.interruptible(every: checkEvery, stopWhen: { ticket?.isCancelled ?? false }) {
                    let statement = try Self.fetchStatement(sql, bindings, on: connection)
                    var lastNumber = layout.entityNumber
                    var lastNamespace = namespaces.namespace(entityName: entity.name)
                    var values: [AttributeValue] = []
                    values.reserveCapacity(columns.count)
                    while try statement.step() {
                        if !singleEntity {
                            let number = Int(statement.int64(at: 1))
                            if number != lastNumber, let concrete = self.layout(forEntityNumber: number) {
                                lastNumber = number
                                lastNamespace = namespaces.namespace(entityNumber: number)
                                    ?? namespaces.namespace(entityName: concrete.entity.name)
                            }
                        }
                        values.removeAll(keepingCapacity: true)
                        var position: Int32 = singleEntity ? 1 : 2
                        for column in columns {
                            guard let column else {
                                values.append(.null)
                                continue
                            }
                            values.append(AttributeValue(sqliteValue: statement.value(at: position), type: column.type))
                            position += 1
                        }
                        try visit(ManagedObjectID(namespace: lastNamespace, key: statement.int64(at: 0)), values)
                    }
                }
            }
        }
    }
}

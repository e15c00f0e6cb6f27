import SQLiteStorage

extension SQLiteStore {
    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let layout = try layout(of: entity)
        var (sql, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        sql = "SELECT \(layout.selectList) FROM \(layout.tableName)" + sql
        sql += " ORDER BY " + (try sortCriteria.map { criterion throws(ObjectGraphError) in
            try orderTerm(layout, criterion)
        } + ["Z_PK"]).joined(separator: ", ")
        if limit > 0 || offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            bindings.append(.integer(limit > 0 ? Int64(limit) : -1))
            bindings.append(.integer(Int64(max(offset, 0))))
        }
        let storeIdentifier = identifier
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                let statement = try connection.cachedStatement(sql)
                try statement.bind(bindings.map(\.sqliteValue))
                var rows: [RowSnapshot] = []
                while try statement.step() {
                    let concrete = self.layout(forEntityNumber: Int(statement.int64(at: 1))) ?? layout
                    rows.append(concrete.snapshot(from: statement, storeIdentifier: storeIdentifier,
                        entityName: { self.layout(forEntityNumber: $0)?.entity.name }))
                }
                return rows
            }
        }
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool)
        throws(ObjectGraphError) -> Int
    {
        let layout = try layout(of: entity)
        let (clause, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        let sql = "SELECT count(*) FROM \(layout.tableName)" + clause
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                guard case .integer(let count)? = try connection.scalar(sql, bindings.map(\.sqliteValue)) else { return 0 }
                return Int(count)
            }
        }
    }

    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let layout = try layout(of: entity)
        let keys = ids.compactMap(\.primaryKey)
        guard !keys.isEmpty else { return [] }
        let storeIdentifier = identifier
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                var rows: [RowSnapshot] = []
                // Chunks keep the statement small and cacheable.
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = keys[start..<min(start + 500, keys.count)]
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    let statement = try connection.prepare(
                        "SELECT \(layout.selectList) FROM \(layout.tableName) WHERE Z_PK IN (\(marks))")
                    try statement.bind(chunk.map { .integer($0) })
                    while try statement.step() {
                        let concrete = self.layout(forEntityNumber: Int(statement.int64(at: 1))) ?? layout
                        rows.append(concrete.snapshot(from: statement, storeIdentifier: storeIdentifier,
                        entityName: { self.layout(forEntityNumber: $0)?.entity.name }))
                    }
                }
                return rows
            }
        }
    }

    /// ` WHERE Z_ENT IN (…) [AND (predicate)]` with its bound values.
    private func whereClause(_ layout: TableLayout, _ predicate: FetchPredicate?, includesSubentities: Bool)
        throws(ObjectGraphError) -> (String, [AttributeValue])
    {
        let numbers = includesSubentities ? layout.entityNumbersWithDescendants : [layout.entityNumber]
        var sql = numbers.count == 1
            ? " WHERE Z_ENT = \(layout.entityNumber)"
            : " WHERE Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ") + ")"
        var bindings: [AttributeValue] = []
        if let predicate {
            do {
                let compiled = try predicate.sqlExpression(columnForKey: layout.column(forKey:))
                sql += " AND (\(compiled.sql))"
                bindings = compiled.bindings
            } catch {
                throw .predicate(error)
            }
        }
        return (sql, bindings)
    }

    /// One `ORDER BY` term: the column, folded by the registered function when the comparison asks for it.
    private func orderTerm(_ layout: TableLayout, _ criterion: SortCriterion) throws(ObjectGraphError) -> String {
        guard let column = layout.column(forKey: criterion.key) else {
            throw .unknownKey(entity: layout.entity.name, key: criterion.key)
        }
        let expression: String
        switch criterion.comparison {
        case .binary: expression = column
        case .caseInsensitive: expression = "\(StringFolding.lowercaseFunctionName)(\(column))"
        case .caseAndDiacriticInsensitive: expression = "\(StringFolding.foldFunctionName)(\(column))"
        }
        return expression + (criterion.ascending ? " ASC" : " DESC")
    }
}

import Foundation
import SQLiteStorage

extension SQLiteStore {
    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let layout = try layout(of: entity)
        let (sql, bindings) = try selectSQL(layout.selectList, layout, predicate, sortCriteria, limit: limit,
            offset: offset, includesSubentities: includesSubentities)
        let namespaces = idNamespaces
        return try withReader { connection throws(ObjectGraphError) in
            try sqlite {
                let statement = try Self.fetchStatement(sql, bindings, on: connection)
                var rows: [RowSnapshot] = []
                // A table of this entity alone holds no other entity's rows: no Z_ENT to look up per row.
                let soleLayout = layout.holdsOnlyThisEntity ? layout : nil
                while try statement.step() {
                    let concrete = soleLayout ?? self.layout(forEntityNumber: Int(statement.int64(at: 1))) ?? layout
                    rows.append(concrete.snapshot(from: statement, namespaces: namespaces))
                }
                return rows
            }
        }
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, limit: Int)
        throws(ObjectGraphError) -> Int
    {
        let layout = try layout(of: entity)
        let (clause, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        let rows = "FROM \(layout.tableName) \(Self.rowAlias)" + clause
        let sql = limit > 0 ? "SELECT count(*) FROM (SELECT 1 \(rows) LIMIT \(limit))" : "SELECT count(*) \(rows)"
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
        let namespaces = idNamespaces
        return try retryingBusyReads { () throws(ObjectGraphError) in try withReader { connection throws(ObjectGraphError) in
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
                        rows.append(concrete.snapshot(from: statement, namespaces: namespaces))
                    }
                }
                return rows
            }
        } }
    }

    /// Runs a read again when it failed with `SQLITE_BUSY`/`SQLITE_LOCKED` that the busy timeout did not absorb
    /// (a busy handler cannot wait everywhere, for example while the WAL index is rebuilt after another process
    /// crashed): up to three more times, 10, 50 and 250 ms apart. Other errors, and the last busy one, are thrown.
    func retryingBusyReads<T>(_ read: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        var delays: [TimeInterval] = [0.01, 0.05, 0.25]
        while true {
            do {
                return try read()
            } catch {
                guard case .sqlite(let failure) = error, failure.isBusyOrLocked, !delays.isEmpty else { throw error }
                Thread.sleep(forTimeInterval: delays.removeFirst())
            }
        }
    }

    /// `SELECT selectList FROM table WHERE … ORDER BY … [LIMIT ? OFFSET ?]` for a fetch, with its bound values:
    /// the sort criteria, then the primary key, so every fetch shape orders rows the same way.
    func selectSQL(
        _ selectList: String, _ layout: TableLayout, _ predicate: FetchPredicate?, _ sortCriteria: [SortCriterion],
        limit: Int, offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> (String, [AttributeValue]) {
        var (sql, bindings) = try whereClause(layout, predicate, includesSubentities: includesSubentities)
        sql = "SELECT \(selectList) FROM \(layout.tableName) \(Self.rowAlias)" + sql
        sql += " ORDER BY " + (try sortCriteria.map { criterion throws(ObjectGraphError) in
            try orderTerm(layout, criterion)
        } + ["\(Self.rowAlias).Z_PK"]).joined(separator: ", ")
        if limit > 0 || offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            bindings.append(.integer(limit > 0 ? Int64(limit) : -1))
            bindings.append(.integer(Int64(max(offset, 0))))
        }
        return (sql, bindings)
    }

    /// The cached statement for a fetch's `sql`, bound to `bindings`. Every predicate shape is a statement of
    /// its own, so the cache is emptied when it grows past ``statementCacheLimit`` (a filter field makes a new
    /// shape per keystroke).
    static func fetchStatement(_ sql: String, _ bindings: [AttributeValue], on connection: SQLiteConnection)
        throws(SQLiteError) -> SQLiteStatement
    {
        if connection.cachedStatementCount > statementCacheLimit { connection.clearStatementCache() }
        let statement = try connection.cachedStatement(sql)
        try statement.bind(bindings.map(\.sqliteValue))
        return statement
    }

    /// The alias of the fetched table in fetch statements; relationship subqueries use `t1`, `t2`, ….
    static let rowAlias = "t0"

    /// How many prepared statements a reader connection keeps before it starts afresh.
    static let statementCacheLimit = 256

    /// ` WHERE Z_ENT IN (…) [AND (predicate)]` with its bound values.
    func whereClause(_ layout: TableLayout, _ predicate: FetchPredicate?, includesSubentities: Bool)
        throws(ObjectGraphError) -> (String, [AttributeValue])
    {
        let numbers = includesSubentities ? layout.entityNumbersWithDescendants : [layout.entityNumber]
        let alias = Self.rowAlias
        var sql = layout.holdsOnlyThisEntity ? " WHERE 1"
            : numbers.count == 1 ? " WHERE \(alias).Z_ENT = \(layout.entityNumber)"
            : " WHERE \(alias).Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ") + ")"
        var bindings: [AttributeValue] = []
        if let predicate {
            if hasExternalBinaryAttributes { try checkExternalDataComparisons(predicate, on: layout.entity) }
            do {
                let compiled = try predicate.sqlExpression(for: layout.entity, schema: predicateSchema, alias: alias)
                sql += " AND (\(compiled.sql))"
                bindings = compiled.bindings
            } catch {
                throw .predicate(error)
            }
        }
        return (sql, bindings)
    }

    /// One `ORDER BY` term: the key (through to-one relationships, as a subquery), folded or turned into a
    /// collation key by the registered functions when the comparison asks for it.
    func orderTerm(_ layout: TableLayout, _ criterion: SortCriterion) throws(ObjectGraphError) -> String {
        let expression: String
        do {
            expression = try FetchPredicate.sqlValue(
                of: criterion.key, for: layout.entity, schema: predicateSchema, alias: Self.rowAlias)
        } catch {
            throw .unknownKey(entity: layout.entity.name, key: criterion.key)
        }
        return criterion.sqlSortKey(expression) + (criterion.ascending ? " ASC" : " DESC")
    }

    /// Takes the rows pending for the text search indexes in now, in one transaction (they are otherwise taken in
    /// ``TextSearchIndex/pendingLimit`` at a time by the triggers); tests use it to reach both states.
    func flushTextIndexes() throws(ObjectGraphError) {
        let indexes = Array(textIndexes.values)
        guard !indexes.isEmpty else { return }
        try withWriter { connection throws(ObjectGraphError) in
            try sqlite { try connection.transaction(.immediate) { try TextSearchIndex.flush(connection, indexes) } }
        }
    }

    /// The store's tables as predicate compilation sees them.
    var predicateSchema: SQLiteStorePredicateSchema { SQLiteStorePredicateSchema(store: self) }
}

/// The SQLite store's layout for compiling predicates and sort criteria: tables and columns from
/// ``TableLayout``, many-to-many tables from ``JoinTable``.
struct SQLiteStorePredicateSchema: PredicateSQLSchema {
    let store: SQLiteStore

    var model: ManagedObjectModel { store.model }
    var storeIdentifier: String { store.identifier }

    func tableName(of entity: EntityDescription) -> String? { (try? store.layout(of: entity))?.tableName }

    func column(forAttribute name: String, of entity: EntityDescription) -> String? {
        (try? store.layout(of: entity))?.column(forKey: name)
    }

    func textIndex(forAttribute name: String, of entity: EntityDescription) -> (table: String, column: String)? {
        guard let attribute = entity.attribute(named: name), attribute.isIndexedBySpotlight,
            let layout = try? store.layout(of: entity), let index = store.textIndexes[layout.tableName],
            index.columns.contains(attribute.columnName)
        else { return nil }
        return (index.name, attribute.columnName)
    }

    func link(forRelationship name: String, of entity: EntityDescription) -> PredicateSQLLink? {
        guard let index = entity.relationships.firstIndex(where: { $0.name == name }),
            let layout = try? store.layout(of: entity)
        else { return nil }
        let relationship = entity.relationships[index]
        if !relationship.isToMany {
            guard let key = layout.foreignKeys.first(where: { $0.relationshipIndex == index }) else { return nil }
            return .foreignKey(column: key.name, entityColumn: key.entityColumn?.name)
        }
        if let table = store.joinTable(of: entity, relationshipIndex: index) {
            return .joinTable(name: table.name, ownColumn: table.ownColumn, otherColumn: table.otherColumn)
        }
        guard let inverseName = relationship.inverseName,
            let destination = model.entity(named: relationship.destinationEntityName),
            let destinationLayout = try? store.layout(of: destination),
            let key = destinationLayout.foreignKeys.first(where: {
                destination.relationships[$0.relationshipIndex].name == inverseName
            })
        else { return nil }
        return .inverseForeignKey(column: key.name)
    }
}

import Foundation
import SQLiteStorage

/// Carries out one ``MigrationMapping`` as SQL on a connection whose transaction the caller holds: no object
/// is loaded, rows move table to table with `INSERT … SELECT`.
///
/// A table whose columns and rows stay as they are is left alone. Any other table of the source is set aside
/// (its indexes dropped, renamed `_OLD_<name>`), the destination's table is created as a new store would
/// create it and filled from the tables set aside (kept columns copied, renamed ones moved, new ones
/// defaulted, rows of removed entities left out), then the tables set aside are dropped. Relationships are
/// read from wherever the source kept them (a foreign key, the inverse's foreign key, a join table) as
/// `(source key, destination key, order)` pairs and written wherever the destination keeps them, which is
/// what turns a to-one relationship into a to-many one and back. `Z_PRIMARYKEY` keeps every existing entity's
/// number; new entities get the numbers the mapping gave them. Indexes are reconciled by the caller at the
/// end of all steps.
struct MigrationExecutor {
    let mapping: MigrationMapping
    let connection: SQLiteConnection
    private let sourceLayouts: [String: TableLayout]
    private let destinationLayouts: [String: TableLayout]
    private let sourceJoins: [String: JoinTable]
    private let destinationJoins: [String: JoinTable]
    /// Source table name → the name it has while the step runs (`_OLD_<name>` once set aside).
    private var current: [String: String] = [:]

    init(mapping: MigrationMapping, connection: SQLiteConnection) {
        self.mapping = mapping
        self.connection = connection
        sourceLayouts = TableLayout.layouts(for: mapping.source)
        destinationLayouts = TableLayout.layouts(for: mapping.destination)
        sourceJoins = JoinTable.tables(for: mapping.source)
        destinationJoins = JoinTable.tables(for: mapping.destination)
    }

    private var source: ManagedObjectModel { mapping.source }
    private var destination: ManagedObjectModel { mapping.destination }

    /// Runs the step.
    mutating func run() throws(SQLiteError) {
        let roots = destination.entities.filter { $0.parentEntityName == nil }
        let joins = destinationJoins.filter(\.value.isOwner).sorted { $0.key < $1.key }
        // Which tables stay as they are.
        var keptTables: Set<String> = []
        for root in roots where isUnchanged(root) { keptTables.insert(root.tableName) }
        for (key, table) in joins where isUnchanged(join: key, table) { keptTables.insert(table.name) }
        let sourceTables = Set(source.entities.filter { $0.parentEntityName == nil }.map(\.tableName))
            .union(sourceJoins.values.filter(\.isOwner).map(\.name))
        for table in sourceTables { current[table] = keptTables.contains(table) ? table : "_OLD_" + table }

        // Set aside every source table that changes or goes.
        for table in sourceTables.sorted() where !keptTables.contains(table) {
            for row in try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = ?", [.text(table)])
            {
                if case .text(let name) = row[0] {
                    try connection.execute("DROP INDEX \(SQLiteConnection.quoteIdentifier(name))")
                }
            }
            try connection.execute("ALTER TABLE \(table) RENAME TO _OLD_\(table)")
        }
        // Create and fill the destination's new tables (each weighed by its source rows when someone follows
        // the progress).
        let filled = roots.filter { !keptTables.contains($0.tableName) }
        let weights = try filled.map { root throws(SQLiteError) -> Int64 in
            guard StoreOpeningProgress.current != nil, let fill = fillStatement(root, destinationLayouts[root.name]) else { return 1 }
            return max(1, try connection.rows("SELECT count(*) FROM \(fill.sourceTable)").first.flatMap { row -> Int64? in
                if case .integer(let count)? = row.first { return count }
                return nil
            } ?? 1)
        }
        let parts = StoreOpeningProgress.split(weights)
        for (root, part) in zip(filled, parts) {
            guard let layout = destinationLayouts[root.name] else { continue }
            try connection.execute(layout.createTableSQL)
            guard let fill = fillStatement(root, layout) else {
                part?.report(1)
                continue
            }
            try KeyRangeFill.run(connection, sql: fill.sql, values: fill.values, sourceTable: fill.sourceTable,
                keyColumn: "old.Z_PK", hasWhere: fill.hasWhere, progress: part)
        }
        for (key, table) in joins where !keptTables.contains(table.name) {
            try connection.execute(table.createTableSQL)
            if let fill = fillStatement(join: key, table) { try connection.execute(fill) }
        }
        for table in sourceTables.sorted() where !keptTables.contains(table) {
            try connection.execute("DROP TABLE _OLD_\(table)")
        }
        try updatePrimaryKeyTable()
    }

    // MARK: Root tables

    /// The `INSERT … SELECT` that fills the new table of `root` from its source table; nil for a new entity.
    private func fillStatement(_ root: EntityDescription, _ layout: TableLayout?)
        -> (sql: String, values: [SQLiteValue], sourceTable: String, hasWhere: Bool)?
    {
        guard let layout, let sourceName = mapping.entitySource[root.name], let sourceRoot = source.entity(named: sourceName),
            let sourceLayout = sourceLayouts[sourceRoot.name], let table = current[sourceLayout.tableName]
        else { return nil }
        let (expressions, values) = columnExpressions(root, layout)
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + layout.tableColumns.map(\.name)
        var sql = "INSERT INTO \(layout.tableName) (" + names.joined(separator: ", ") + ") SELECT old.Z_PK, old.Z_ENT, "
            + "old.Z_OPT" + expressions.map { ", " + $0 }.joined() + " FROM \(table) AS old"
        let kept = keptEntityNumbers(root)
        if let kept { sql += " WHERE old.Z_ENT IN (\(kept))" }
        return (sql, values, table, kept != nil)
    }

    /// The numbers of the source hierarchy's entities that the destination keeps, as an SQL list; nil when
    /// it keeps them all.
    private func keptEntityNumbers(_ root: EntityDescription) -> String? {
        guard let sourceName = mapping.entitySource[root.name], let sourceRoot = source.entity(named: sourceName)
        else { return nil }
        let all = source.entityAndDescendants(of: sourceRoot).map(source.entityNumber(of:))
        let kept = destination.entityAndDescendants(of: root).filter { mapping.entitySource[$0.name] != nil }
            .map(destination.entityNumber(of:))
        return Set(all).isSubset(of: kept) ? nil : kept.sorted().map(String.init).joined(separator: ", ")
    }

    /// Whether the table of `root` keeps its name, columns and rows.
    private func isUnchanged(_ root: EntityDescription) -> Bool {
        guard let layout = destinationLayouts[root.name], let sourceName = mapping.entitySource[root.name],
            let sourceLayout = sourceLayouts[sourceName], layout.tableName == sourceLayout.tableName,
            keptEntityNumbers(root) == nil
        else { return false }
        let columns = Dictionary(layout.tableColumns.map { ($0.name, $0.sqlType) }) { first, _ in first }
        let sourceColumns = Dictionary(sourceLayout.tableColumns.map { ($0.name, $0.sqlType) }) { first, _ in first }
        guard columns == sourceColumns else { return false }
        let (expressions, values) = columnExpressions(root, layout)
        return values.isEmpty && zip(expressions, layout.tableColumns).allSatisfy { $0 == "old.\($1.name)" }
    }

    /// The select expression of every column of the new table of `root`, reading the source row as `old`,
    /// and the values its `?` placeholders take, in order.
    private func columnExpressions(_ root: EntityDescription, _ layout: TableLayout) -> ([String], [SQLiteValue]) {
        var expressions = [String](repeating: "NULL", count: layout.tableColumns.count)
        var parameters = [[SQLiteValue]](repeating: [], count: layout.tableColumns.count)
        for entity in destination.entityAndDescendants(of: root) {
            guard let entityLayout = destinationLayouts[entity.name] else { continue }
            let sourceEntity = mapping.entitySource[entity.name].flatMap(source.entity(named:))
            for attribute in entity.ownAttributes where !attribute.isTransient {
                guard let index = entity.attributeIndex(named: attribute.name),
                    let column = entityLayout.columns.first(where: { $0.attributeIndex == index })
                else { continue }
                let previousName = mapping.attributeSource[entity.name]?[attribute.name]
                if let sourceEntity, let previousName, let previous = sourceEntity.attribute(named: previousName),
                    let sourceColumn = sourceLayouts[sourceEntity.name]?.column(forKey: previousName)
                {
                    if previous.isOptional && !attribute.isOptional && !attribute.defaultValue.isNull {
                        expressions[column.position] = "COALESCE(old.\(sourceColumn), ?)"
                        parameters[column.position] = [attribute.defaultValue.sqliteValue]
                    } else {
                        expressions[column.position] = "old.\(sourceColumn)"
                    }
                } else if !attribute.defaultValue.isNull {
                    let numbers = entityLayout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
                    expressions[column.position] = "CASE WHEN old.Z_ENT IN (\(numbers)) THEN ? END"
                    parameters[column.position] = [attribute.defaultValue.sqliteValue]
                }
            }
            for key in entityLayout.foreignKeys {
                let relationship = entity.relationships[key.relationshipIndex]
                guard entity.ownRelationships.contains(where: { $0.name == relationship.name }) else { continue }
                for (position, expression) in foreignKeyExpressions(entity, relationship, key) {
                    expressions[position] = expression
                }
            }
        }
        return (expressions, parameters.flatMap { $0 })
    }

    /// The expressions of a to-one relationship's columns (key, entity, order), by column position.
    private func foreignKeyExpressions(
        _ entity: EntityDescription, _ relationship: RelationshipDescription, _ key: TableLayout.ForeignKey
    ) -> [(Int, String)] {
        let sourceEntity = mapping.entitySource[entity.name].flatMap(source.entity(named:))
        let previousName = mapping.relationshipSource[entity.name]?[relationship.name]
        var result: [(Int, String)] = []
        if let sourceEntity, let previousName, let previous = sourceEntity.relationship(named: previousName),
            !previous.isToMany,
            let sourceKey = sourceLayouts[sourceEntity.name]?.foreignKeys.first(where: {
                sourceEntity.relationships[$0.relationshipIndex].name == previousName
            })
        {
            result.append((key.position, "old.\(sourceKey.name)"))
            if let entityColumn = key.entityColumn {
                result.append((entityColumn.position,
                    sourceKey.entityColumn.map { "old.\($0.name)" } ?? destinationEntity(relationship, of: "old.\(sourceKey.name)")))
            }
            if let orderColumn = key.orderColumn, let sourceOrder = sourceKey.orderColumn,
                let position = destinationLayouts[entity.name]?.tableColumns.firstIndex(where: { $0.name == orderColumn })
            {
                result.append((position, "old.\(sourceOrder)"))
            }
            return result
        }
        guard let pairs = pairs(entity, relationship) else { return [] }
        // To-many → to-one keeps the first member: by the order of an ordered relationship, else the lowest key.
        let linked = "(SELECT p.d FROM (\(pairs)) AS p WHERE p.s = old.Z_PK ORDER BY p.o IS NULL, p.o, p.d LIMIT 1)"
        result.append((key.position, linked))
        if let entityColumn = key.entityColumn {
            result.append((entityColumn.position, destinationEntity(relationship, of: linked)))
        }
        return result
    }

    /// The `Z_ENT` of the destination row whose key `keyExpression` gives, read from the source table.
    private func destinationEntity(_ relationship: RelationshipDescription, of keyExpression: String) -> String {
        guard let sourceName = mapping.entitySource[relationship.destinationEntityName],
            let table = sourceLayouts[sourceName].flatMap({ current[$0.tableName] })
        else { return "NULL" }
        return "(SELECT z.Z_ENT FROM \(table) AS z WHERE z.Z_PK = \(keyExpression))"
    }

    // MARK: Relationship links

    /// The links of the destination relationship `relationship` of `entity` as they are in the source store:
    /// a `SELECT s, d, o` of source key, destination key and order (or NULL); nil when the relationship (and
    /// its inverse) are new.
    private func pairs(_ entity: EntityDescription, _ relationship: RelationshipDescription) -> String? {
        if let sourceName = mapping.entitySource[entity.name], let sourceEntity = source.entity(named: sourceName),
            let previousName = mapping.relationshipSource[entity.name]?[relationship.name],
            let previous = sourceEntity.relationship(named: previousName)
        {
            return sourcePairs(sourceEntity, previous)
        }
        guard let inverseName = relationship.inverseName,
            let destinationName = mapping.entitySource[relationship.destinationEntityName],
            let sourceDestination = source.entity(named: destinationName),
            let previousInverse = mapping.relationshipSource[relationship.destinationEntityName]?[inverseName],
            let inverse = sourceDestination.relationship(named: previousInverse),
            let reversed = sourcePairs(sourceDestination, inverse)
        else { return nil }
        return "SELECT q.d AS s, q.s AS d, NULL AS o FROM (\(reversed)) AS q"
    }

    /// The links of a source relationship, wherever the source store keeps them.
    private func sourcePairs(_ entity: EntityDescription, _ relationship: RelationshipDescription) -> String? {
        guard let layout = sourceLayouts[entity.name] else { return nil }
        if !relationship.isToMany {
            guard let key = layout.foreignKeys.first(where: { entity.relationships[$0.relationshipIndex].name == relationship.name }),
                let table = current[layout.tableName]
            else { return nil }
            let numbers = layout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
            return "SELECT Z_PK AS s, \(key.name) AS d, NULL AS o FROM \(table) "
                + "WHERE Z_ENT IN (\(numbers)) AND \(key.name) IS NOT NULL"
        }
        let destination = source.entity(named: relationship.destinationEntityName)
        if let destination, let inverseName = relationship.inverseName,
            let inverse = destination.relationship(named: inverseName), !inverse.isToMany
        {
            guard let destinationLayout = sourceLayouts[destination.name],
                let key = destinationLayout.foreignKeys.first(where: {
                    destination.relationships[$0.relationshipIndex].name == inverseName
                }),
                let table = current[destinationLayout.tableName]
            else { return nil }
            let numbers = destinationLayout.entityNumbersWithDescendants.map(String.init).joined(separator: ", ")
            return "SELECT \(key.name) AS s, Z_PK AS d, \(key.orderColumn ?? "NULL") AS o FROM \(table) "
                + "WHERE Z_ENT IN (\(numbers)) AND \(key.name) IS NOT NULL"
        }
        let declaring = sequence(first: entity) { $0.parentEntityName.flatMap(source.entity(named:)) }
            .first { $0.ownRelationships.contains { $0.name == relationship.name } } ?? entity
        guard let join = sourceJoins["\(declaring.name).\(relationship.name)"], let table = current[join.name] else {
            return nil
        }
        return "SELECT \(join.ownColumn) AS s, \(join.otherColumn) AS d, \(join.orderColumn ?? "NULL") AS o FROM \(table)"
    }

    // MARK: Join tables

    /// Whether the destination join table `key` is the source's, unchanged.
    private func isUnchanged(join key: String, _ table: JoinTable) -> Bool {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let sourceEntityName = mapping.entitySource[parts[0]],
            let previousName = mapping.relationshipSource[parts[0]]?[parts[1]],
            let sourceJoin = sourceJoins["\(sourceEntityName).\(previousName)"]
        else { return false }
        return sourceJoin.isOwner && sourceJoin.name == table.name && sourceJoin.ownColumn == table.ownColumn
            && sourceJoin.otherColumn == table.otherColumn && sourceJoin.allOrderColumns == table.allOrderColumns
            && sourceJoin.orderColumn == table.orderColumn
    }

    /// The `INSERT … SELECT` that fills a new join table from the source's links; nil when there are none.
    private func fillStatement(join key: String, _ table: JoinTable) -> String? {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let entity = destination.entity(named: parts[0]),
            let relationship = entity.relationship(named: parts[1]), let pairs = pairs(entity, relationship)
        else { return nil }
        var columns = [table.ownColumn, table.otherColumn], values = ["p.s", "p.d"]
        if let order = table.orderColumn {
            columns.append(order)
            values.append("p.o")
        }
        // The other side's order, when it is ordered too, from its own links (it may have kept them elsewhere).
        if let other = destinationJoins.values.first(where: { !$0.isOwner && $0.name == table.name }),
            let otherOrder = other.orderColumn, otherOrder != table.orderColumn,
            let inverseName = relationship.inverseName,
            let otherEntity = destination.entity(named: relationship.destinationEntityName),
            let inverse = otherEntity.relationship(named: inverseName), let otherPairs = self.pairs(otherEntity, inverse)
        {
            columns.append(otherOrder)
            values.append("(SELECT q.o FROM (\(otherPairs)) AS q WHERE q.s = p.d AND q.d = p.s LIMIT 1)")
        }
        return "INSERT OR IGNORE INTO \(table.name) (\(columns.joined(separator: ", "))) "
            + "SELECT \(values.joined(separator: ", ")) FROM (\(pairs)) AS p"
    }

    // MARK: Entity numbers

    /// Renames kept entities, removes those that went and adds new ones in `Z_PRIMARYKEY`.
    private func updatePrimaryKeyTable() throws(SQLiteError) {
        let kept = Set(mapping.entitySource.values)
        for entity in source.entities where !kept.contains(entity.name) {
            try connection.prepare("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = ?").run([.integer(Int64(source.entityNumber(of: entity)))])
        }
        for entity in destination.entities {
            let number = Int64(destination.entityNumber(of: entity))
            let parent = Int64(entity.parentEntityName.flatMap(destination.entity(named:)).map(destination.entityNumber(of:)) ?? 0)
            if mapping.entitySource[entity.name] != nil {
                try connection.prepare("UPDATE Z_PRIMARYKEY SET Z_NAME = ?, Z_SUPER = ? WHERE Z_ENT = ?")
                    .run([.text(entity.name), .integer(parent), .integer(number)])
            } else {
                try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
                    .run([.integer(number), .text(entity.name), .integer(parent)])
            }
        }
    }
}

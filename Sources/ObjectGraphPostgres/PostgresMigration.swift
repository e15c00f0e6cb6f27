import Foundation
@_spi(StoreImplementation) import ObjectGraph

/// Carries out inferred lightweight-migration steps on a PostgreSQL store's tables, inside the caller's
/// transaction: tables and columns renamed, added (with their default values) and dropped, `Entity/pk` references
/// and relationship list keys following renamed entities and relationships, lists of removed relationships
/// deleted; then (``finish(_:)``) the destination's new tables, key counters and unique indexes.
///
/// Links move between to-one columns and lists when a relationship's storage kind changes (to-one ↔ to-many,
/// ordered ↔ unordered, or a to-many gaining or losing a to-one inverse): ``PostgresLinkMoves`` says how.
struct PostgresMigration {
    let connection: PostgresConnection
    let displayName: String
    let plan: MigrationPlan
    /// For temporary names of tables and columns being renamed.
    private var counter = 0

    init(connection: PostgresConnection, displayName: String, plan: MigrationPlan) {
        self.connection = connection
        self.displayName = displayName
        self.plan = plan
    }

    /// One step, in the caller's transaction.
    mutating func run(_ step: InferredMigrationStep) throws(ObjectGraphError) {
        let moves = PostgresLinkMoves(connection: connection, step: step)
        try moves.capture()
        let source = step.source, destination = step.destination
        let mappedSources = Set(step.entitySource.values)
        // Tables of entities that are gone (or no longer concrete).
        for entity in source.entities where !entity.isAbstract {
            let kept = step.entitySource.first { $0.value == entity.name }.flatMap { destination.entity(named: $0.key) }
            if kept == nil || kept?.isAbstract == true || !mappedSources.contains(entity.name) {
                try connection.execute("DROP TABLE IF EXISTS \(PostgresSchema.table(entity))")
            }
        }
        // Renamed tables, through temporary names (two entities may swap names).
        var renamed: [(temporary: String, final: String)] = []
        for entity in destination.entities where !entity.isAbstract {
            guard let sourceName = step.entitySource[entity.name], let old = source.entity(named: sourceName),
                !old.isAbstract, PostgresSchema.table(old) != PostgresSchema.table(entity)
            else { continue }
            counter += 1
            let temporary = PostgresSQL.identifier("Z_MIGRATING_\(counter)")
            try connection.execute("ALTER TABLE \(PostgresSchema.table(old)) RENAME TO \(temporary)")
            renamed.append((temporary, PostgresSchema.table(entity)))
        }
        for (temporary, final) in renamed { try connection.execute("ALTER TABLE \(temporary) RENAME TO \(final)") }
        // Columns of entities that existed.
        for entity in destination.entities where !entity.isAbstract {
            guard let sourceName = step.entitySource[entity.name], let old = source.entity(named: sourceName),
                !old.isAbstract
            else { continue }
            try migrateColumns(of: entity, from: old, step: step, moves: moves)
        }
        try moves.write()
        try rewriteReferences(step)
        // Tables of the step's new entities (a later step may change them; indexes and key counters come at the end).
        for statement in PostgresSchema(model: destination).creationStatements()
        where statement.hasPrefix("CREATE TABLE") {
            try connection.execute(statement)
        }
    }

    /// Renames, adds and drops the columns of `entity`'s table (which was `old`'s).
    private mutating func migrateColumns(of entity: EntityDescription, from old: EntityDescription,
        step: InferredMigrationStep, moves: PostgresLinkMoves) throws(ObjectGraphError)
    {
        let table = PostgresSchema.table(entity)
        let attributes = step.attributeSource[entity.name] ?? [:]
        let relationships = step.relationshipSource[entity.name] ?? [:]
        var keptColumns: Set<String> = []
        var renames: [(from: String, to: String)] = []
        // Folded-text columns follow their attributes (a database made before them has none: ``finish(_:)`` adds
        // and fills those that are missing then); `folded` is the set of those the table has after the renames.
        let foldedBefore = try presentFoldedColumns(of: entity)
        var folded: Set<String> = []
        for (_, attribute) in PostgresSchema.storedAttributes(entity) {
            guard let previous = attributes[attribute.name], let before = old.attribute(named: previous),
                PostgresSchema.storedAttributes(old).contains(where: { $0.attribute.name == previous })
            else { continue }
            keptColumns.insert(PostgresSchema.column(before))
            renames.append((PostgresSchema.column(before), PostgresSchema.column(attribute)))
            if let from = PostgresSchema.foldedColumn(before), let to = PostgresSchema.foldedColumn(attribute),
                foldedBefore.contains(before.columnName + "$F")
            {
                keptColumns.insert(from)
                renames.append((from, to))
                folded.insert(to)
            }
        }
        // (A to-one that was a to-many gets a new column, which the moved links fill.)
        func kept(_ name: String) -> String? { moves.keepsColumn(of: entity, name) ? relationships[name] : nil }
        for (_, name) in PostgresSchema.storedToOnes(entity) {
            guard let previous = kept(name) else { continue }
            keptColumns.insert(PostgresSchema.column(previous))
            renames.append((PostgresSchema.column(previous), PostgresSchema.column(name)))
        }
        // Columns that are gone.
        let oldColumns = PostgresSchema.storedAttributes(old).map { PostgresSchema.column($0.attribute) }
            + PostgresSchema.storedAttributes(old).compactMap { PostgresSchema.foldedColumn($0.attribute) }
            + PostgresSchema.storedToOnes(old).map { PostgresSchema.column($0.name) }
        for column in oldColumns where !keptColumns.contains(column) {
            try connection.execute("ALTER TABLE \(table) DROP COLUMN IF EXISTS \(column)")
        }
        // Renamed ones, through temporary names.
        var temporaries: [(String, String)] = []
        for (from, to) in renames where from != to {
            counter += 1
            let temporary = PostgresSQL.identifier("Z_MIGRATING_\(counter)")
            try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(from) TO \(temporary)")
            temporaries.append((temporary, to))
        }
        for (temporary, final) in temporaries {
            try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(temporary) TO \(final)")
        }
        // New ones; and defaults for rows without a value where an attribute became required. (A string
        // attribute's folded text is written with its value, folded here: the server cannot fold.)
        for (_, attribute) in PostgresSchema.storedAttributes(entity) {
            let column = PostgresSchema.column(attribute)
            let type = PostgresValueCoding.columnType(attribute.attributeType)
            let defaultValue = PostgresValueCoding.encode(attribute.defaultValue, as: attribute.attributeType)
            var assignments = "\(column) = $1"
            var parameters = [defaultValue]
            func foldingToo(_ foldedColumn: String) {
                assignments += ", \(foldedColumn) = $2"
                parameters.append(PostgresSchema.foldedText(PostgresValueCoding.decode(defaultValue, as: .string)))
            }
            if let previous = attributes[attribute.name], old.attribute(named: previous) != nil {
                if !attribute.isOptional, defaultValue != nil {
                    if let foldedColumn = PostgresSchema.foldedColumn(attribute), folded.contains(foldedColumn) {
                        foldingToo(foldedColumn)
                    }
                    try connection.execute("UPDATE \(table) SET \(assignments) WHERE \(column) IS NULL", parameters)
                }
                continue
            }
            var added = "ADD COLUMN \(column) \(type)"
            if let foldedColumn = PostgresSchema.foldedColumn(attribute) {
                added += ", ADD COLUMN \(foldedColumn) text COLLATE \"C\""
                foldingToo(foldedColumn)
            }
            try connection.execute("ALTER TABLE \(table) \(added)")
            if defaultValue != nil { try connection.execute("UPDATE \(table) SET \(assignments)", parameters) }
        }
        for (_, name) in PostgresSchema.storedToOnes(entity) where kept(name) == nil {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(PostgresSchema.column(name)) text COLLATE \"C\"")
        }
    }

    /// The folded-text columns (unquoted) that `entity`'s table has now.
    private func presentFoldedColumns(of entity: EntityDescription) throws(ObjectGraphError) -> Set<String> {
        let rows = try connection.execute(#"SELECT column_name FROM information_schema.columns "#
            + #"WHERE table_schema = current_schema() AND table_name = $1 AND column_name LIKE '%$F'"#,
            ["Z" + entity.name.uppercased()])
        return Set(rows.compactMap { $0.first ?? nil })
    }

    /// Makes `Entity/pk` references and list keys follow renamed entities and relationships, and deletes the lists
    /// and list members of relationships and entities that are gone.
    private func rewriteReferences(_ step: InferredMigrationStep) throws(ObjectGraphError) {
        let destination = step.destination
        let entityRenames = step.entitySource.filter { $0.key != $0.value }.map { (old: $0.value, new: $0.key) }
        if !entityRenames.isEmpty {
            var parameters: [String?] = []
            var cases: [String] = []
            for rename in entityRenames {
                parameters += [rename.old + "/", rename.new + "/"]
                cases.append("WHEN left(%C, length($\(parameters.count - 1))) = $\(parameters.count - 1) "
                    + "THEN $\(parameters.count) || substr(%C, length($\(parameters.count - 1)) + 1)")
            }
            let template = "CASE " + cases.joined(separator: " ") + " ELSE %C END"
            func set(_ column: String) -> String { template.replacingOccurrences(of: "%C", with: column) }
            for entity in destination.entities where !entity.isAbstract {
                for (_, name) in PostgresSchema.storedToOnes(entity) {
                    let column = PostgresSchema.column(name)
                    try connection.execute("UPDATE \(PostgresSchema.table(entity)) SET \(column) = \(set(column)) "
                        + "WHERE \(column) IS NOT NULL", parameters)
                }
            }
            try connection.execute(#"UPDATE "Z_RELATIONSHIPLISTS" SET "Z_MEMBER" = "# + set(#""Z_MEMBER""#), parameters)
            try connection.execute(#"UPDATE "Z_EXTERNALDATA" SET "Z_OWNER" = "# + set(#""Z_OWNER""#), parameters)
            for rename in entityRenames {
                try connection.execute(#"UPDATE "Z_PRIMARYKEY" SET "Z_NAME" = $2 WHERE "Z_NAME" = $1"#,
                    [rename.old, rename.new])
            }
        }
        // External values follow renamed attributes; those of attributes that are gone (or no longer allow external
        // storage) go.
        var externalRenames: [(entity: String, old: String, new: String)] = []
        var externalKept: [String] = []
        for entity in destination.entities where !entity.isAbstract {
            for (_, attribute) in PostgresSchema.externalAttributes(entity) {
                externalKept.append("\(entity.name)/\(attribute.name)")
                if let previous = step.attributeSource[entity.name]?[attribute.name], previous != attribute.name {
                    externalRenames.append((entity.name, previous, attribute.name))
                }
            }
        }
        if !externalRenames.isEmpty {
            try connection.execute(#"UPDATE "Z_EXTERNALDATA" AS e SET "Z_ATTRIBUTE" = r.new "#
                + #"FROM unnest($1::text[], $2::text[], $3::text[]) AS r(entity, old, new) "#
                + #"WHERE split_part(e."Z_OWNER", '/', 1) = r.entity AND e."Z_ATTRIBUTE" = r.old"#,
                [PostgresSQL.textArray(externalRenames.map(\.entity)), PostgresSQL.textArray(externalRenames.map(\.old)),
                    PostgresSQL.textArray(externalRenames.map(\.new))])
        }
        try connection.execute(#"DELETE FROM "Z_EXTERNALDATA" WHERE split_part("Z_OWNER", '/', 1) || '/' || "Z_ATTRIBUTE" "#
            + #"<> ALL($1::text[])"#, [PostgresSQL.textArray(externalKept)])
        // List keys are `Entity.relationship#pk` (and `#order`).
        var keyRenames: [(old: String, new: String)] = []
        var valid: [String] = []
        for entity in destination.entities where !entity.isAbstract {
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                let new = "\(entity.name).\(relationship.name)"
                valid.append(new)
                guard let oldEntity = step.entitySource[entity.name],
                    let oldRelationship = step.relationshipSource[entity.name]?[relationship.name]
                else { continue }
                let old = "\(oldEntity).\(oldRelationship)"
                if old != new { keyRenames.append((old, new)) }
            }
        }
        if !keyRenames.isEmpty {
            try connection.execute(#"UPDATE "Z_RELATIONSHIPLISTS" AS l SET "Z_KEY" = m.new || substr(l."Z_KEY", "#
                + #"length(m.old) + 1) FROM unnest($1::text[], $2::text[]) AS m(old, new) "#
                + #"WHERE split_part(l."Z_KEY", '#', 1) = m.old"#,
                [PostgresSQL.textArray(keyRenames.map(\.old)), PostgresSQL.textArray(keyRenames.map(\.new))])
        }
        try connection.execute(#"DELETE FROM "Z_RELATIONSHIPLISTS" WHERE split_part("Z_KEY", '#', 1) <> ALL($1::text[])"#,
            [PostgresSQL.textArray(valid)])
        let concrete = destination.entities.filter { !$0.isAbstract }.map(\.name)
        try connection.execute(#"DELETE FROM "Z_RELATIONSHIPLISTS" WHERE split_part("Z_MEMBER", '/', 1) <> ALL($1::text[])"#,
            [PostgresSQL.textArray(concrete)])
    }

    /// After the last step: unique indexes made again for `model` (a constraint that existing rows break fails the
    /// migration), new tables and key counters created, counters of hierarchies that are gone deleted.
    func finish(_ model: ManagedObjectModel) throws(ObjectGraphError) {
        let indexes = try connection.execute(#"SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "#
            + #"AND indexname LIKE 'Z\_%\_UNIQUE\_%'"#)
        for row in indexes {
            guard let name = row.first ?? nil else { continue }
            try connection.execute("DROP INDEX \(PostgresSQL.identifier(name))")
        }
        for statement in PostgresSchema(model: model).creationStatements() {
            do throws(ObjectGraphError) {
                try connection.execute(statement)
            } catch {
                guard statement.hasPrefix("CREATE UNIQUE INDEX") else { throw error }
                switch error {
                case .uniqueConstraintViolated, .storeFailed: break
                default: throw error
                }
                throw ObjectGraphError.migrationNotInferable(path: displayName, from: plan.sourceVersion,
                    to: plan.destinationVersion, change: "uniqueness constraint added",
                    reason: "existing rows repeat its values")
            }
        }
        // Folded-text columns the source's tables lacked (a database made before them), filled from the values.
        try PostgresFoldedColumns.add(try PostgresFoldedColumns.missing(in: model, on: connection), on: connection)
        let roots = model.entities.filter { $0.parentEntityName == nil }.map(\.name)
        try connection.execute(#"DELETE FROM "Z_PRIMARYKEY" WHERE "Z_NAME" <> ALL($1::text[])"#,
            [PostgresSQL.textArray(roots)])
    }
}

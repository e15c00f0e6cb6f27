import Foundation
import SQLiteStorage

/// A derived attribute's derivation (Core Data's `NSDerivedAttributeDescription`), parsed from the model's
/// `derivationExpression`: what Core Data supports — a key path (the entity's own attribute or a to-one
/// relationship's), `lowercase:`, `uppercase:` or `canonical:` of one, `@count` of a to-many relationship
/// (one-to-many or many-to-many), `@sum` of an attribute across one, and `now()`.
enum Derivation: Equatable, Sendable {
    /// A string function applied to a key path's value.
    enum Function: String, Sendable {
        case lowercase, uppercase, canonical
    }

    /// `name` or `author.name`.
    case keyPath([String])
    /// `lowercase:(title)`, `canonical:(author.name)`.
    case function(Function, [String])
    /// `pages.@count`.
    case count(relationship: String)
    /// `items.@sum.price`, or as Core Data spells it, `items.price.@sum`.
    case sum(relationship: String, attribute: String)
    /// `now()`: the time of the row's last save.
    case now

    /// Parses `text`; nil for a form this framework does not compute.
    init?(_ text: String) {
        let expression = text.filter { !$0.isWhitespace }
        if expression == "now()" {
            self = .now
            return
        }
        for function in [Function.lowercase, .uppercase, .canonical] {
            let prefix = function.rawValue + ":("
            if expression.hasPrefix(prefix), expression.hasSuffix(")") {
                let path = expression.dropFirst(prefix.count).dropLast().split(separator: ".").map(String.init)
                guard (1...2).contains(path.count), path.allSatisfy(Self.isName) else { return nil }
                self = .function(function, path)
                return
            }
        }
        let parts = expression.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, parts[1] == "@count", Self.isName(parts[0]) {
            self = .count(relationship: parts[0])
        } else if parts.count == 3, parts[1] == "@sum", Self.isName(parts[0]), Self.isName(parts[2]) {
            self = .sum(relationship: parts[0], attribute: parts[2])
        } else if parts.count == 3, parts[2] == "@sum", Self.isName(parts[0]), Self.isName(parts[1]) {
            // Core Data's own spelling (`items.price.@sum`, which it compiles to `sum:(items.price)`).
            self = .sum(relationship: parts[0], attribute: parts[1])
        } else if (1...2).contains(parts.count), parts.allSatisfy(Self.isName) {
            self = .keyPath(parts)
        } else {
            return nil
        }
    }

    private static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }
}

/// The SQL triggers that keep an ObjectGraph SQLite store's derived attributes computed, in the writing
/// transaction, on every write path (saves, batch requests, imports, migrations), as Core Data keeps them in its
/// own stores: named `Z_DA_<table>_<Entity>_<attribute>_<role>`, recomputing the affected rows' values.
///
/// Stores Core Data wrote keep their own triggers; these are made only for ObjectGraph's stores.
struct DerivedAttributeTriggers {
    let model: ManagedObjectModel
    let layouts: [String: TableLayout]

    /// Every trigger the model needs, by name, and the statements that compute every derived value from scratch.
    func expected() -> (triggers: [String: String], recompute: [String]) {
        var triggers: [String: String] = [:]
        var recompute: [String] = []
        for entity in model.entities {
            // (Inherited derived attributes are kept by the entity that declares them.)
            for attribute in entity.ownAttributes where attribute.isDerived && !attribute.isTransient {
                guard let plan = plan(entity, attribute) else { continue }
                for (role, sql) in plan.triggers {
                    let name = "Z_DA_\(plan.onTable[role] ?? plan.table)_\(entity.name)_\(attribute.name)_\(role)"
                    triggers[name] = "CREATE TRIGGER \(SQLiteConnection.quoteIdentifier(name)) \(sql)"
                }
                recompute.append("UPDATE \(plan.table) SET \(plan.column) = \(plan.value) WHERE \(plan.targetRows)")
            }
        }
        return (triggers, recompute)
    }

    /// How one derived attribute is kept: its table and column, the SQL value (columns of the row being computed
    /// are the table's own), the rows of its entity, and the triggers by role.
    private struct Plan {
        var table: String
        var column: String
        var value: String
        var targetRows: String
        var triggers: [String: String] = [:]
        var onTable: [String: String] = [:]
    }

    private func entityTest(_ entity: EntityDescription, _ row: String) -> String {
        let numbers = model.entityAndDescendants(of: entity).map { String(model.entityNumber(of: $0)) }
        return "\(row).Z_ENT IN (\(numbers.joined(separator: ", ")))"
    }

    private func plan(_ entity: EntityDescription, _ attribute: AttributeDescription) -> Plan? {
        guard let expression = attribute.derivationExpression, let derivation = Derivation(expression),
            let layout = layouts[entity.name], let column = layout.column(forKey: attribute.name)
        else { return nil }
        let table = layout.tableName
        var plan = Plan(table: table, column: column, value: "", targetRows: entityTest(entity, table))
        let update = { (rows: String) in "UPDATE \(table) SET \(column) = \(plan.value) WHERE \(rows);" }
        /// The value of a one- or two-step key path, and the columns of this table it reads.
        func keyPathValue(_ path: [String]) -> (sql: String, ownColumns: [String], destination: (table: String, column: String, key: String)?)? {
            if path.count == 1 {
                guard let source = layout.column(forKey: path[0]) else { return nil }
                return ("\(table).\(source)", [source], nil)
            }
            guard let index = entity.relationships.firstIndex(where: { $0.name == path[0] }),
                !entity.relationships[index].isToMany,
                let key = layout.foreignKeys.first(where: { $0.relationshipIndex == index }),
                let destinationLayout = layouts[entity.relationships[index].destinationEntityName],
                let destinationColumn = destinationLayout.column(forKey: path[1])
            else { return nil }
            let destinationTable = destinationLayout.tableName
            return ("(SELECT D.\(destinationColumn) FROM \(destinationTable) D WHERE D.Z_PK = \(table).\(key.name))",
                [key.name], (destinationTable, destinationColumn, key.name))
        }
        switch derivation {
        case .now:
            plan.value = "NSCoreDataNow()"
            plan.triggers["SOURCE_INSERT"] = "AFTER INSERT ON \(table) WHEN \(entityTest(entity, "NEW")) BEGIN "
                + update("Z_PK = NEW.Z_PK") + " END"
            plan.triggers["SOURCE_UPDATE"] = "AFTER UPDATE OF Z_OPT ON \(table) WHEN \(entityTest(entity, "NEW")) BEGIN "
                + update("Z_PK = NEW.Z_PK") + " END"
            // Recomputing existing rows would give them all the time of the open: leave their values.
            plan.targetRows = "0"
            return plan
        case .keyPath(let path), .function(_, let path):
            guard let read = keyPathValue(path) else { return nil }
            switch derivation {
            case .function(.lowercase, _): plan.value = "\(StringFolding.lowercaseFunctionName)(\(read.sql))"
            case .function(.uppercase, _): plan.value = "\(PredicateSQLFunctions.uppercaseFunctionName)(\(read.sql))"
            case .function(.canonical, _): plan.value = "\(StringFolding.foldFunctionName)(\(read.sql))"
            default: plan.value = read.sql
            }
            plan.triggers["SOURCE_INSERT"] = "AFTER INSERT ON \(table) WHEN \(entityTest(entity, "NEW")) BEGIN "
                + update("Z_PK = NEW.Z_PK") + " END"
            plan.triggers["SOURCE_UPDATE"] = "AFTER UPDATE OF \(read.ownColumns.joined(separator: ", ")) ON \(table) "
                + "WHEN \(entityTest(entity, "NEW")) BEGIN " + update("Z_PK = NEW.Z_PK") + " END"
            if let destination = read.destination {
                let rows = "\(destination.key) = %@ AND \(entityTest(entity, table))"
                plan.triggers["PARAMETER_UPDATE"] = "AFTER UPDATE OF \(destination.column) ON \(destination.table) BEGIN "
                    + update(rows.replacingOccurrences(of: "%@", with: "NEW.Z_PK")) + " END"
                plan.triggers["PARAMETER_DELETE"] = "AFTER DELETE ON \(destination.table) BEGIN "
                    + update(rows.replacingOccurrences(of: "%@", with: "OLD.Z_PK")) + " END"
                plan.onTable["PARAMETER_UPDATE"] = destination.table
                plan.onTable["PARAMETER_DELETE"] = destination.table
            }
            return plan
        case .count(let name), .sum(let name, _):
            guard let relationship = entity.relationship(named: name), relationship.isToMany,
                let destination = model.entity(named: relationship.destinationEntityName)
            else { return nil }
            guard let inverseName = relationship.inverseName,
                let inverseIndex = destination.relationships.firstIndex(where: { $0.name == inverseName }),
                !destination.relationships[inverseIndex].isToMany,
                let destinationLayout = layouts[destination.name],
                let key = destinationLayout.foreignKeys.first(where: { $0.relationshipIndex == inverseIndex })
            else {
                // Many-to-many (or no inverse): the members are the join table's rows.
                return joinTablePlan(plan, entity: entity, relationship: relationship, destination: destination,
                    derivation: derivation)
            }
            let destinationTable = destinationLayout.tableName
            let children = "FROM \(destinationTable) D WHERE D.\(key.name) = \(table).Z_PK AND \(entityTest(destination, "D"))"
            var watched = [key.name]
            if case .sum(_, let attributeName) = derivation {
                guard let summed = destinationLayout.column(forKey: attributeName) else { return nil }
                plan.value = "(SELECT IFNULL(SUM(D.\(summed)), 0) \(children))"
                watched.append(summed)
            } else {
                plan.value = "(SELECT COUNT(*) \(children))"
            }
            plan.triggers["SOURCE_INSERT"] = "AFTER INSERT ON \(table) WHEN \(entityTest(entity, "NEW")) BEGIN "
                + update("Z_PK = NEW.Z_PK") + " END"
            let owners = { (row: String) in "Z_PK = \(row).\(key.name) AND \(self.entityTest(entity, table))" }
            plan.triggers["PARAMETER_INSERT"] = "AFTER INSERT ON \(destinationTable) WHEN NEW.\(key.name) IS NOT NULL "
                + "BEGIN " + update(owners("NEW")) + " END"
            plan.triggers["PARAMETER_UPDATE"] = "AFTER UPDATE OF \(watched.joined(separator: ", ")) ON \(destinationTable) "
                + "BEGIN " + update(owners("NEW")) + " " + update(owners("OLD")) + " END"
            plan.triggers["PARAMETER_DELETE"] = "AFTER DELETE ON \(destinationTable) WHEN OLD.\(key.name) IS NOT NULL "
                + "BEGIN " + update(owners("OLD")) + " END"
            for role in ["PARAMETER_INSERT", "PARAMETER_UPDATE", "PARAMETER_DELETE"] { plan.onTable[role] = destinationTable }
            return plan
        }
    }

    /// How a `@count` or `@sum` over a relationship kept in a join table (many-to-many, or without an inverse) is
    /// kept: the value counts (or sums the destination's attribute over) the join rows of the owner, and triggers on
    /// the join table — and, for a sum, on the summed column — recompute the owners those rows name.
    private func joinTablePlan(
        _ start: Plan, entity: EntityDescription, relationship: RelationshipDescription, destination: EntityDescription,
        derivation: Derivation
    ) -> Plan? {
        guard let join = JoinTable.tables(for: model)["\(entity.name).\(relationship.name)"] else { return nil }
        var plan = start
        let table = plan.table
        let update = { (rows: String) in "UPDATE \(table) SET \(plan.column) = \(plan.value) WHERE \(rows);" }
        // Members are joined with the destination's table: a relationship without an inverse keeps join rows of
        // destinations deleted since (Core Data's dangling references), which the graph does not show.
        guard let destinationLayout = layouts[destination.name] else { return nil }
        let destinationTable = destinationLayout.tableName
        let members = "FROM \(join.name) J JOIN \(destinationTable) D ON D.Z_PK = J.\(join.otherColumn) "
            + "WHERE J.\(join.ownColumn) = \(table).Z_PK"
        var summedColumn: String?
        if case .sum(_, let attributeName) = derivation {
            guard let column = destinationLayout.column(forKey: attributeName) else { return nil }
            summedColumn = column
            plan.value = "(SELECT IFNULL(SUM(D.\(column)), 0) \(members))"
        } else {
            plan.value = "(SELECT COUNT(*) \(members))"
        }
        let owners = { (row: String) in "Z_PK = \(row).\(join.ownColumn) AND \(self.entityTest(entity, table))" }
        plan.triggers["SOURCE_INSERT"] = "AFTER INSERT ON \(table) WHEN \(entityTest(entity, "NEW")) BEGIN "
            + update("Z_PK = NEW.Z_PK") + " END"
        plan.triggers["PARAMETER_INSERT"] = "AFTER INSERT ON \(join.name) BEGIN " + update(owners("NEW")) + " END"
        plan.triggers["PARAMETER_UPDATE"] = "AFTER UPDATE OF \(join.ownColumn), \(join.otherColumn) ON \(join.name) "
            + "BEGIN " + update(owners("NEW")) + " " + update(owners("OLD")) + " END"
        plan.triggers["PARAMETER_DELETE"] = "AFTER DELETE ON \(join.name) BEGIN " + update(owners("OLD")) + " END"
        for role in ["PARAMETER_INSERT", "PARAMETER_UPDATE", "PARAMETER_DELETE"] { plan.onTable[role] = join.name }
        // The owners of a destination row: its summed value changed, or it was deleted.
        let ownersOf = { (row: String) in
            "Z_PK IN (SELECT J.\(join.ownColumn) FROM \(join.name) J WHERE J.\(join.otherColumn) = \(row).Z_PK) "
                + "AND \(self.entityTest(entity, table))"
        }
        plan.triggers["DESTINATION_DELETE"] = "AFTER DELETE ON \(destinationTable) BEGIN " + update(ownersOf("OLD")) + " END"
        plan.onTable["DESTINATION_DELETE"] = destinationTable
        if let summedColumn {
            plan.triggers["SUMMED_UPDATE"] = "AFTER UPDATE OF \(summedColumn) ON \(destinationTable) BEGIN "
                + update(ownersOf("NEW")) + " END"
            plan.onTable["SUMMED_UPDATE"] = destinationTable
        }
        return plan
    }

    /// Drops every `Z_DA_` trigger (an ObjectGraph store about to be migrated: its tables are rebuilt; the
    /// triggers of the new version are made, and its values computed, when the migrated store is next opened).
    static func dropAll(_ connection: SQLiteConnection) throws(SQLiteError) {
        for name in try existing(connection).keys {
            try connection.execute("DROP TRIGGER \(SQLiteConnection.quoteIdentifier(name))")
        }
    }

    /// Whether the store's `Z_DA_` triggers differ from the model's (read without a write lock).
    func needsReconciling(_ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
        try Self.existing(connection) != expected().triggers
    }

    /// The store's `Z_DA_` triggers: name → SQL.
    private static func existing(_ connection: SQLiteConnection) throws(SQLiteError) -> [String: String] {
        var existing: [String: String] = [:]
        for row in try connection.rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'")
        {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { existing[name] = sql }
        }
        return existing
    }

    /// Makes the store's `Z_DA_` triggers the model's: drops the others, creates the missing ones and, when any
    /// changed, computes every derived value again. Run in one transaction by the caller.
    func reconcile(_ connection: SQLiteConnection) throws(SQLiteError) {
        let (triggers, recompute) = expected()
        let existing = try Self.existing(connection)
        var changed = false
        for (name, sql) in existing where triggers[name] != sql {
            try connection.execute("DROP TRIGGER \(SQLiteConnection.quoteIdentifier(name))")
            changed = true
        }
        for (name, sql) in triggers.sorted(by: { $0.key < $1.key }) where existing[name] != sql {
            try connection.execute(sql)
            changed = true
        }
        if changed { for statement in recompute { try connection.execute(statement) } }
    }
}

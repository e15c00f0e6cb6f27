/// The join table of a many-to-many relationship (or a to-many relationship without an inverse), named as
/// Core Data names it: for `Author(1).books ↔ Book(2).authors`, table `Z_1BOOKS` with columns
/// `Z_1AUTHORS` (Author keys) and `Z_2BOOKS` (Book keys). The side whose entity name sorts first (then
/// relationship name) owns the table and writes it; the other side reads it.
struct JoinTable: Sendable {
    let name: String
    /// The column holding keys of the entity that declares this side.
    let ownColumn: String
    /// The column holding keys of the destination.
    let otherColumn: String
    /// Whether this side writes the table.
    let isOwner: Bool
    /// `Z_FOK_<n><NAME>`: the position of each row in this side's order, when this side is ordered.
    var orderColumn: String? = nil
    /// Every order column of the table (both sides may be ordered).
    var allOrderColumns: [String] = []

    /// Every join table side of `model`, keyed by `"Entity.relationship"`.
    static func tables(for model: ManagedObjectModel) -> [String: JoinTable] {
        var result: [String: JoinTable] = [:]
        for entity in model.entities {
            for relationship in entity.ownRelationships where relationship.isToMany && !relationship.isTransient {
                let destination = model.entity(named: relationship.destinationEntityName)
                let inverse = relationship.inverseName.flatMap { destination?.relationship(named: $0) }
                if let inverse, !inverse.isToMany { continue }  // one-to-many: a foreign key on the other side
                let entityNumber = model.entityNumber(of: entity)
                let destinationNumber = destination.map(model.entityNumber(of:)) ?? 0
                guard let inverse, let destination else {
                    // No inverse: this side owns a table of its own.
                    result["\(entity.name).\(relationship.name)"] = JoinTable(
                        name: "Z_\(entityNumber)\(relationship.name.uppercased())",
                        ownColumn: "Z_\(entityNumber)\(entity.name.uppercased())",
                        otherColumn: "Z_\(destinationNumber)\(relationship.name.uppercased())", isOwner: true)
                    continue
                }
                let isOwner = (entity.name, relationship.name) <= (destination.name, inverse.name)
                let ownerEntity = isOwner ? entity : destination
                let ownerRelationship = isOwner ? relationship : inverse
                let ownerNumber = model.entityNumber(of: ownerEntity)
                // Each column is named after the relationship that points at the entity whose keys it holds.
                let ownColumn = "Z_\(entityNumber)\(inverse.name.uppercased())"
                var otherColumn = "Z_\(destinationNumber)\(relationship.name.uppercased())"
                if otherColumn == ownColumn { otherColumn += "1" }
                result["\(entity.name).\(relationship.name)"] = JoinTable(
                    name: "Z_\(ownerNumber)\(ownerRelationship.name.uppercased())", ownColumn: ownColumn,
                    otherColumn: otherColumn, isOwner: isOwner)
            }
        }
        // Ordered sides keep their order in Z_FOK_<column of their destination>, as Core Data does.
        for entity in model.entities {
            for relationship in entity.ownRelationships where relationship.isOrdered {
                let key = "\(entity.name).\(relationship.name)"
                guard var table = result[key] else { continue }
                table.orderColumn = "Z_FOK_" + table.otherColumn.dropFirst(2)
                result[key] = table
            }
        }
        for (key, table) in result {
            let columns = result.values.filter { $0.name == table.name }.compactMap(\.orderColumn)
            result[key]?.allOrderColumns = Array(Set(columns)).sorted()
        }
        // Reflexive tables: both sides must agree on which column got the suffix.
        for (key, table) in result where !table.isOwner {
            if let owner = result.values.first(where: { $0.isOwner && $0.name == table.name }),
                owner.ownColumn == table.otherColumn || owner.otherColumn == table.ownColumn
            {
                result[key] = JoinTable(name: table.name, ownColumn: owner.otherColumn, otherColumn: owner.ownColumn,
                    isOwner: false, orderColumn: table.orderColumn, allOrderColumns: table.allOrderColumns)
            }
        }
        return result
    }

    /// `CREATE TABLE`, as Core Data writes it (for the owning side).
    var createTableSQL: String {
        "CREATE TABLE \(name) ( \(ownColumn) INTEGER, \(otherColumn) INTEGER, "
            + allOrderColumns.map { "\($0) INTEGER, " }.joined()
            + "PRIMARY KEY (\(ownColumn), \(otherColumn)) )"
    }

    /// The index on the destination column, as Core Data writes it (for the owning side).
    var indexSQL: (name: String, sql: String) {
        let indexName = "\(name)_\(otherColumn)_INDEX"
        return (indexName, "CREATE INDEX \(indexName) ON \(name) (\(otherColumn), \(ownColumn))")
    }

    /// `CREATE TABLE` and its index, as Core Data writes them (for the owning side).
    var createStatements: [String] { [createTableSQL, indexSQL.sql] }
}

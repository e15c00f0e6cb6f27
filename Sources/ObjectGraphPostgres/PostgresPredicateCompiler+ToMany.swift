import Foundation
import ObjectGraph

// To-many relationships: `ANY`/`ALL`/`NONE` (and the implicit `ANY`) of one attribute of the members, and `@count`.
extension PostgresPredicateCompiler {
    /// The members of the to-many `relationship` of the row (of the concrete `entity`), as SQL giving one row per
    /// member with `v`, the member's `attribute` (or NULL without one), and `f`, its folded text (or NULL); and that
    /// attribute as a ``Column`` reading them (aliased `mm`). Nil when the attribute has no exact translation.
    ///
    /// A one-to-many relationship's members are the destination rows whose to-one inverse names the row; any other's
    /// are those its list in `Z_RELATIONSHIPLISTS` names (`Entity.relationship#pk`), as the store keeps them.
    func members(of relationship: RelationshipDescription, owner entity: EntityDescription, attribute name: String?)
        -> (sql: String, column: Column?)?
    {
        guard let destination = model.entity(named: relationship.destinationEntityName) else { return nil }
        var column: Column?
        var value = "NULL", folded = "NULL::text"
        if let name {
            // (Read from the member's table, aliased `m`, and seen through the members' alias `mm`.)
            guard let attribute = Self.comparableAttribute(name, of: destination) else { return nil }
            value = "m." + PostgresSchema.column(attribute)
            let foldedColumn = hasFoldedColumns ? PostgresSchema.foldedColumn(attribute) : nil
            folded = foldedColumn.map { "m." + $0 } ?? "NULL::text"
            column = Column(sql: "mm.v", folded: foldedColumn == nil ? nil : "mm.f", type: attribute.attributeType)
        }
        let owner = Self.literal(entity.name + "/")
        let inverse = relationship.inverseName.flatMap { destination.relationship(named: $0) }
        let tables = model.entityAndDescendants(of: destination).filter { !$0.isAbstract }.map { member in
            let table = PostgresSchema.table(member)
            if let inverse, !inverse.isToMany {
                return "SELECT \(value) AS v, \(folded) AS f FROM \(table) AS m "
                    + "WHERE m.\(PostgresSchema.column(inverse.name)) = \(owner) || \(Self.rowAlias).\"Z_PK\""
            }
            let key = Self.literal("\(entity.name).\(relationship.name)#")
            return "SELECT \(value) AS v, \(folded) AS f FROM \"Z_RELATIONSHIPLISTS\" AS l JOIN \(table) AS m "
                + "ON m.\"Z_PK\" = split_part(l.\"Z_MEMBER\", '/', 2)::bigint "
                + "AND split_part(l.\"Z_MEMBER\", '/', 1) = \(Self.literal(member.name)) "
                + "WHERE l.\"Z_KEY\" = \(key) || \(Self.rowAlias).\"Z_PK\""
        }
        guard !tables.isEmpty else { return nil }
        return (tables.joined(separator: " UNION ALL "), column)
    }

    /// `text` as an SQL string literal (names from the model, never from predicates).
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// The to-many relationship a key path starts with, and the one attribute it reads of the members
    /// (`tags.name`); nil for any other key path.
    func toManyPath(_ operand: FetchPredicate.Operand, of entity: EntityDescription)
        -> (relationship: RelationshipDescription, attribute: String)?
    {
        guard case .key(let path, _) = operand else { return nil }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard keys.count == 2, let relationship = entity.relationship(named: keys[0]), relationship.isToMany,
            !relationship.isTransient
        else { return nil }
        return (relationship, keys[1])
    }

    /// A comparison of a to-many key path's values with a constant: memory tests each member's value and, two-valued,
    /// `ANY` (and no qualifier) holds when one holds, `ALL` when every one does (so for no member), `NONE` when none
    /// does. Nil when it has no exact translation (other operators, whose meaning on a collection differs).
    mutating func toManyComparison(_ comparison: FetchPredicate.Comparison, for entity: EntityDescription) -> String? {
        guard let (relationship, attribute) = toManyPath(comparison.left, of: entity),
            case .constant(let value)? = side(comparison.right, of: entity)
        else { return nil }
        switch comparison.operation {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .beginsWith,
            .endsWith, .like:
            break
        case .contains, .in, .matches, .between:
            return nil
        }
        guard let (sql, memberColumn) = members(of: relationship, owner: entity, attribute: attribute),
            let memberColumn,
            let test = scalar(comparison.operation, .column(memberColumn), .constant(value),
                options: Self.effective(comparison.options))
        else { return nil }
        switch comparison.modifier {
        case .direct, .any: return "EXISTS (SELECT 1 FROM (\(sql)) AS mm WHERE \(test))"
        case .all: return "(NOT EXISTS (SELECT 1 FROM (\(sql)) AS mm WHERE NOT COALESCE(\(test), FALSE)))"
        case .none: return "(NOT EXISTS (SELECT 1 FROM (\(sql)) AS mm WHERE \(test)))"
        }
    }

    /// `relationship.@count` of the row: the number of members, an integer column that is never nil.
    func memberCount(_ operation: FetchPredicate.CollectionOperation, of entity: EntityDescription) -> Side? {
        guard operation.function == .count, case .keyPath(let path) = operation.source, !path.contains("."),
            let relationship = entity.relationship(named: path), relationship.isToMany, !relationship.isTransient,
            let (sql, _) = members(of: relationship, owner: entity, attribute: nil)
        else { return nil }
        return .column(Column(sql: "(SELECT count(*) FROM (\(sql)) AS mm)", folded: nil, type: .integer64))
    }
}

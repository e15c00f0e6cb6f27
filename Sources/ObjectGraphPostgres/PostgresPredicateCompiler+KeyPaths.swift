import Foundation
import ObjectGraph

// Keys and key paths through to-one relationships, read as SQL expressions on the row aliased `t`.
extension PostgresPredicateCompiler {
    /// The alias of the table whose rows a compiled condition or sort tests.
    static let rowAlias = "t"

    /// What a key path reads on a row of `entity`: an attribute's value (``Side/column(_:)``) or a to-one
    /// relationship's destination (``Side/toOne(sql:)``), through any number of to-one relationships first
    /// (`company.parent.name`); nil for anything else (to-many relationships, transient or undefined attributes,
    /// composites, external-storage data, unknown keys — memory answers, or refuses, those).
    ///
    /// A hop is a correlated scalar subquery on the destination's tables by primary key (the to-one column holds
    /// `Entity/pk`), so a missing destination reads as NULL — memory's nil.
    static func side(forKeyPath path: String, of entity: EntityDescription, model: ManagedObjectModel,
        hasFoldedColumns: Bool) -> Side?
    {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let last = keys.last else { return nil }
        var current = entity
        var link: String?  // the current row's `Entity/pk`, nil while on the row itself
        for (depth, key) in keys.dropLast().enumerated() {
            guard let relationship = current.relationship(named: key), !relationship.isToMany, !relationship.isTransient,
                let destination = model.entity(named: relationship.destinationEntityName)
            else { return nil }
            link = read(PostgresSchema.column(key), of: current, via: link, depth: depth, model: model)
            current = destination
        }
        let depth = keys.count - 1
        if current.attributes.contains(where: { $0.name == last }) {
            guard let attribute = comparableAttribute(last, of: current) else { return nil }
            let folded = hasFoldedColumns ? PostgresSchema.foldedColumn(attribute) : nil
            return .column(Column(
                sql: read(PostgresSchema.column(attribute), of: current, via: link, depth: depth, model: model),
                folded: folded.map { read($0, of: current, via: link, depth: depth, model: model) },
                type: attribute.attributeType))
        }
        if let relationship = current.relationship(named: last), !relationship.isToMany, !relationship.isTransient {
            return .toOne(sql: read(PostgresSchema.column(last), of: current, via: link, depth: depth, model: model))
        }
        return nil
    }

    /// The attribute `name` of `entity` when the server holds comparable values of it in a column of its own: stored,
    /// not composite (its elements have the columns), not undefined, not kept apart as external data.
    static func comparableAttribute(_ name: String, of entity: EntityDescription) -> AttributeDescription? {
        guard let attribute = entity.attributes.first(where: { $0.name == name }), !attribute.isTransient,
            !attribute.allowsExternalBinaryDataStorage, attribute.attributeType != .undefined,
            attribute.attributeType != .composite
        else { return nil }
        return attribute
    }

    /// `column` of the row of `entity` that `link` (an `Entity/pk` expression) names, or of the tested row itself
    /// when `link` is nil.
    private static func read(_ column: String, of entity: EntityDescription, via link: String?, depth: Int,
        model: ManagedObjectModel) -> String
    {
        guard let link else { return "\(rowAlias).\(column)" }
        let alias = "d\(depth)"
        let tables = model.entityAndDescendants(of: entity).filter { !$0.isAbstract }.map { destination in
            "SELECT \(alias).\(column) FROM \(PostgresSchema.table(destination)) AS \(alias) "
                + "WHERE \(alias).\"Z_PK\" = split_part(\(link), '/', 2)::bigint "
                + "AND split_part(\(link), '/', 1) = '\(destination.name.replacingOccurrences(of: "'", with: "''"))'"
        }
        guard !tables.isEmpty else { return "NULL" }
        return "(" + tables.joined(separator: " UNION ALL ") + ")"
    }
}

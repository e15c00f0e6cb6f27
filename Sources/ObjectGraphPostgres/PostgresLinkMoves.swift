import Foundation
@_spi(StoreImplementation) import ObjectGraph

/// Moves the links of relationships whose storage kind a migration step changes, on a PostgreSQL store, inside the
/// migration's transaction: to-one ↔ to-many, ordered ↔ unordered, and a to-many gaining or losing a to-one inverse
/// (which moves its members between `Z_RELATIONSHIPLISTS` and the inverse's column).
///
/// Before the step changes any table, ``capture()`` reads every such relationship's links from wherever the source
/// model kept them, as `(owner, destination, order)` triples, into a temporary table, and deletes the source's lists
/// of them; after the step's tables and columns are in place (and before references follow renamed entities and
/// relationships), ``write()`` puts the links wherever the destination model keeps them. The SQLite store's migrator
/// does the same with its own tables (`MigrationExecutor`), and both give the same graph:
///
/// - to-one → to-many: the one link becomes a one-member list (or stays in the inverse's column when the inverse is
///   a to-one, which then holds it);
/// - to-many → to-one: the first member is kept: by the relationship's order when it was ordered, else the one with
///   the lowest primary key. Core Data's documentation lists to-many → to-one among the changes lightweight
///   migration infers, without saying which member stays; we keep the one a person would call first, and for an
///   unordered relationship (which has no first) the oldest object, deterministically;
/// - unordered → ordered: the members get the order of their primary keys (the order the SQLite store reads
///   unordered members in);
/// - ordered → unordered: the order is dropped;
/// - a list whose relationship gains a to-one inverse: the inverse's column (written from the inverse's own links)
///   holds the links from then on, in primary-key order.
struct PostgresLinkMoves {
    /// One relationship of one concrete entity whose storage kind changes.
    struct Move {
        /// The concrete entity in the destination model, and its relationship.
        let entity: EntityDescription
        let relationship: RelationshipDescription
        /// The same entity and relationship in the source model.
        let sourceEntity: EntityDescription
        let previous: RelationshipDescription
        /// The source's list key prefix, `Entity.relationship` (lists written under it follow renames afterwards).
        var sourcePrefix: String { "\(sourceEntity.name).\(previous.name)" }
    }

    let connection: PostgresConnection
    let step: InferredMigrationStep
    let moves: [Move]

    static let linksTable = PostgresSQL.identifier("Z_MIGRATING_LINKS")

    init(connection: PostgresConnection, step: InferredMigrationStep) {
        self.connection = connection
        self.step = step
        var moves: [Move] = []
        for entity in step.destination.entities where !entity.isAbstract {
            guard let sourceName = step.entitySource[entity.name], let old = step.source.entity(named: sourceName),
                !old.isAbstract
            else { continue }
            for relationship in entity.relationships where !relationship.isTransient {
                guard let previousName = step.relationshipSource[entity.name]?[relationship.name],
                    let previous = old.relationship(named: previousName), !previous.isTransient,
                    Self.changesStorage(from: previous, in: step.source, to: relationship, in: step.destination)
                else { continue }
                moves.append(Move(entity: entity, relationship: relationship, sourceEntity: old, previous: previous))
            }
        }
        self.moves = moves
    }

    /// Whether a to-many relationship keeps its members in `Z_RELATIONSHIPLISTS` (the replica's rule: unless its
    /// inverse is a to-one, whose column holds the links).
    static func usesList(_ relationship: RelationshipDescription, in model: ManagedObjectModel) -> Bool {
        guard relationship.isToMany else { return false }
        let inverse = relationship.inverseName.flatMap {
            model.entity(named: relationship.destinationEntityName)?.relationship(named: $0)
        }
        return inverse.map(\.isToMany) ?? true
    }

    /// Whether `previous` and `relationship` keep their links in different ways.
    static func changesStorage(from previous: RelationshipDescription, in source: ManagedObjectModel,
        to relationship: RelationshipDescription, in destination: ManagedObjectModel) -> Bool
    {
        previous.isToMany != relationship.isToMany
            || (relationship.isToMany && previous.isOrdered != relationship.isOrdered)
            || usesList(previous, in: source) != usesList(relationship, in: destination)
    }

    /// Whether the destination's to-one `name` of `entity` keeps the source's column (else its column is new).
    func keepsColumn(of entity: EntityDescription, _ name: String) -> Bool {
        !moves.contains { $0.entity.name == entity.name && $0.relationship.name == name }
    }

    /// `Entity/pk` → pk, in SQL.
    private static func key(_ reference: String) -> String { "split_part(\(reference), '/', 2)::bigint" }

    /// Reads the links of every move from the source's tables into the temporary table, then deletes the source's
    /// lists of them. Call before the step changes any table.
    func capture() throws(ObjectGraphError) {
        guard !moves.isEmpty else { return }
        try connection.execute("DROP TABLE IF EXISTS \(Self.linksTable)")
        try connection.execute("CREATE TEMPORARY TABLE \(Self.linksTable) (\"M\" integer NOT NULL, "
            + "\"S\" text COLLATE \"C\" NOT NULL, \"D\" text COLLATE \"C\" NOT NULL, \"O\" bigint) ON COMMIT DROP")
        for (number, move) in moves.enumerated() {
            for (select, parameters) in sourceLinks(move) {
                try connection.execute("INSERT INTO \(Self.linksTable) (\"M\", \"S\", \"D\", \"O\") "
                    + "SELECT \(number), l.s, l.d, l.o FROM (\(select)) AS l", parameters)
            }
        }
        try connection.execute(#"DELETE FROM "Z_RELATIONSHIPLISTS" WHERE split_part("Z_KEY", '#', 1) = ANY($1::text[])"#,
            [PostgresSQL.textArray(moves.map(\.sourcePrefix))])
    }

    /// `SELECT s, d, o` statements giving the links of `move`'s source relationship, wherever the source kept them.
    private func sourceLinks(_ move: Move) -> [(String, [String?])] {
        let owner = move.sourceEntity, previous = move.previous
        if !previous.isToMany {
            let column = PostgresSchema.column(previous.name)
            return [("SELECT $1::text || '/' || \"Z_PK\" AS s, \(column) AS d, NULL::bigint AS o FROM "
                + "\(PostgresSchema.table(owner)) WHERE \(column) IS NOT NULL", [owner.name])]
        }
        let lists = #""Z_RELATIONSHIPLISTS""#
        if Self.usesList(previous, in: step.source) {
            let order = previous.isOrdered
                ? #"LEFT JOIN \#(lists) AS r ON r."Z_KEY" = m."Z_KEY" || '#order' AND r."Z_MEMBER" = m."Z_MEMBER""# : ""
            return [("SELECT $1::text || '/' || split_part(m.\"Z_KEY\", '#', 2) AS s, m.\"Z_MEMBER\" AS d, "
                + (previous.isOrdered ? "r.\"Z_POSITION\"::bigint" : "NULL::bigint") + " AS o FROM \(lists) AS m \(order) "
                + "WHERE split_part(m.\"Z_KEY\", '#', 1) = $2::text AND split_part(m.\"Z_KEY\", '#', 3) = ''",
                [owner.name, move.sourcePrefix])]
        }
        // One-to-many: the destinations' column of the to-one inverse holds the links (and `#order` lists the order).
        guard let inverseName = previous.inverseName,
            let destination = step.source.entity(named: previous.destinationEntityName)
        else { return [] }
        return step.source.entityAndDescendants(of: destination).compactMap { member in
            guard !member.isAbstract, let inverse = member.relationship(named: inverseName), !inverse.isToMany else {
                return nil
            }
            let column = "x." + PostgresSchema.column(inverse.name)
            let order = previous.isOrdered
                ? #"LEFT JOIN \#(lists) AS r ON r."Z_KEY" = $3::text || '#' || split_part(\#(column), '/', 2) || '#order' "#
                    + #"AND r."Z_MEMBER" = $2::text || '/' || x."Z_PK""# : ""
            return ("SELECT \(column) AS s, $2::text || '/' || x.\"Z_PK\" AS d, "
                + (previous.isOrdered ? "r.\"Z_POSITION\"::bigint" : "NULL::bigint") + " AS o "
                + "FROM \(PostgresSchema.table(member)) AS x \(order) "
                + "WHERE \(column) IS NOT NULL AND split_part(\(column), '/', 1) = $1::text",
                [owner.name, member.name] + (previous.isOrdered ? [move.sourcePrefix] : []))
        }
    }

    /// Writes the captured links where the destination model keeps them. Call after the step's tables and columns
    /// exist, before references and list keys follow renames (the links still name the source's entities).
    func write() throws(ObjectGraphError) {
        guard !moves.isEmpty else { return }
        let first = #""O" NULLS LAST, \#(Self.key(#""D""#))"#
        for (number, move) in moves.enumerated() {
            let relationship = move.relationship
            if !relationship.isToMany {
                let column = PostgresSchema.column(relationship.name)
                try connection.execute("UPDATE \(PostgresSchema.table(move.entity)) AS t SET \(column) = f.\"D\" FROM "
                    + "(SELECT DISTINCT ON (\"S\") \"S\", \"D\" FROM \(Self.linksTable) WHERE \"M\" = \(number) "
                    + "ORDER BY \"S\", \(first)) AS f WHERE t.\"Z_PK\" = \(Self.key(#"f."S""#))")
                continue
            }
            // A one-to-many's links are its inverse's column: nothing to write (and its order is by key).
            guard Self.usesList(relationship, in: step.destination) else { continue }
            for suffix in relationship.isOrdered ? ["", "#order"] : [""] {
                try connection.execute(#"INSERT INTO "Z_RELATIONSHIPLISTS" ("Z_KEY", "Z_POSITION", "Z_MEMBER") "#
                    + #"SELECT $1::text || '#' || \#(Self.key(#""S""#)) || $2::text, "#
                    + #"row_number() OVER (PARTITION BY "S" ORDER BY \#(first)), "D" FROM \#(Self.linksTable) "#
                    + #"WHERE "M" = \#(number)"#, [move.sourcePrefix, suffix])
            }
        }
        try connection.execute("DROP TABLE \(Self.linksTable)")
    }
}

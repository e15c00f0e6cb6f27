import Foundation
import ObjectGraph

/// The tables of a PostgreSQL store, from the model, in the spirit of Core Data's SQLite layout:
///
/// - one table per concrete entity, `"Z" + NAME` (upper-cased), with `Z_PK` (primary key, unique across the
///   entity's inheritance hierarchy), `Z_ENT` (the entity number), `Z_OPT` (the row version), a column
///   `"Z" + ATTRIBUTE` per stored attribute — followed, for a string attribute, by its folded text
///   `"Z" + ATTRIBUTE + "$F"` (``foldedColumn(_:)``: written with every value, never read back) — and one per stored
///   to-one relationship (the destination as `Entity/pk`);
/// - `Z_PRIMARYKEY`: the highest key handed out per hierarchy (`UPDATE … RETURNING`, so no two clients ever get
///   the same key);
/// - `Z_METADATA`: the store's UUID and metadata property list;
/// - `Z_RELATIONSHIPLISTS`: to-many memberships kept as lists (many-to-many, and the order of ordered
///   relationships), one row per member and position;
/// - `Z_EXTERNALDATA`: values of attributes that allow external binary storage from the store's threshold on
///   (`PersistentStoreOptions.externalBinaryDataThreshold`), one row per object and attribute, kept out of the
///   entity table (whose column is then NULL), each with a `Z_VALUEID` (from the sequence `Z_EXTERNALVALUEID`) that
///   a new value always changes; clients hold references and read the bytes on demand;
/// - `Z_CHANGES`: one row per committed transaction (who, and which objects and lists it changed), which other
///   clients read when its `NOTIFY` reaches them; `Z_PURGED` and `Z_RESTORED`: how far the log was purged, and
///   where a restore last replaced the contents.
struct PostgresSchema {
    let model: ManagedObjectModel

    /// The table of a concrete entity.
    static func table(_ entity: EntityDescription) -> String { PostgresSQL.identifier("Z" + entity.name.uppercased()) }

    /// The stored attributes of `entity`, with their positions in its attribute list.
    static func storedAttributes(_ entity: EntityDescription) -> [(index: Int, attribute: AttributeDescription)] {
        entity.attributes.enumerated().filter { !$0.element.isTransient && $0.element.attributeType != .undefined }
            .map { ($0.offset, $0.element) }
    }

    /// The stored to-one relationships of `entity`, with their positions in its relationship list.
    static func storedToOnes(_ entity: EntityDescription) -> [(index: Int, name: String)] {
        entity.relationships.enumerated().filter { !$0.element.isToMany && !$0.element.isTransient }
            .map { ($0.offset, $0.element.name) }
    }

    /// The stored attributes of `entity` that allow external binary storage.
    static func externalAttributes(_ entity: EntityDescription) -> [(index: Int, attribute: AttributeDescription)] {
        storedAttributes(entity).filter { $0.attribute.allowsExternalBinaryDataStorage }
    }

    /// The table of external values (see the type's description).
    static let externalDataTable = #"CREATE TABLE IF NOT EXISTS "Z_EXTERNALDATA" ("Z_OWNER" text COLLATE "C" NOT NULL, "#
        + #""Z_ATTRIBUTE" text COLLATE "C" NOT NULL, "Z_BYTES" bytea NOT NULL, PRIMARY KEY ("Z_OWNER", "Z_ATTRIBUTE"))"#

    /// The column of an attribute or relationship named `name`.
    static func column(_ name: String) -> String { PostgresSQL.identifier("Z" + name.uppercased()) }

    /// An attribute's column: as in SQLite stores (a composite's element `location.latitude` is `ZLOCATION_LATITUDE`).
    static func column(_ attribute: AttributeDescription) -> String { PostgresSQL.identifier(attribute.columnName) }

    /// The folded-text column of a string attribute (`"ZLASTNAME$F"`), nil for other attributes: the value as
    /// ``StringFolding/folded(_:)`` gives it, written by the client with every value, so that the server can answer
    /// case- and diacritic-insensitive comparisons and the `[cd]` sort order exactly as memory does (byte tests and
    /// byte order on folded UTF-8, the column being `COLLATE "C"`). `$` cannot appear in an attribute's name, so the
    /// name never collides with an attribute's column — except when PostgreSQL would cut it to its 63 bytes: an
    /// attribute whose column name is that long has no folded column, and its `[cd]` comparisons and sorts are
    /// answered from the client's copy.
    static func foldedColumn(_ attribute: AttributeDescription) -> String? {
        guard attribute.attributeType == .string, attribute.columnName.utf8.count + 2 <= 63 else { return nil }
        return PostgresSQL.identifier(attribute.columnName + "$F")
    }

    /// What a folded-text column (``foldedColumn(_:)``) holds for `value`: its folded text, or nil (NULL) for nil.
    static func foldedText(_ value: AttributeValue) -> String? {
        guard case .string(let text) = value else { return nil }
        return StringFolding.folded(text)
    }

    /// The data columns of `entity`'s table, in order: attributes, then to-one relationships. Rows are read
    /// through these (never the folded-text columns, which are derived from them).
    static func dataColumns(_ entity: EntityDescription) -> [String] {
        storedAttributes(entity).map { column($0.attribute) } + storedToOnes(entity).map { column($0.name) }
    }

    /// The columns a write of `entity`'s row sets, in order: each stored attribute's column, directly followed by
    /// its folded-text column (``foldedColumn(_:)``) when it is a string attribute, then the to-one relationships.
    static func writtenColumns(_ entity: EntityDescription) -> [String] {
        var columns: [String] = []
        for (_, attribute) in storedAttributes(entity) {
            columns.append(column(attribute))
            if let folded = foldedColumn(attribute) { columns.append(folded) }
        }
        return columns + storedToOnes(entity).map { column($0.name) }
    }

    /// The stored string attributes of `entity` with their folded-text columns (unquoted names, as
    /// `information_schema` spells them, and quoted).
    static func foldedColumns(_ entity: EntityDescription)
        -> [(attribute: AttributeDescription, name: String, column: String)]
    {
        storedAttributes(entity).compactMap { _, attribute in
            foldedColumn(attribute).map { (attribute, attribute.columnName + "$F", $0) }
        }
    }

    /// Statements creating every table that is missing (existing ones are left as they are).
    func creationStatements() -> [String] {
        var statements = [
            #"CREATE TABLE IF NOT EXISTS "Z_METADATA" ("Z_UUID" text PRIMARY KEY, "Z_PLIST" bytea NOT NULL)"#,
            #"CREATE TABLE IF NOT EXISTS "Z_PRIMARYKEY" ("Z_NAME" text PRIMARY KEY, "Z_MAX" bigint NOT NULL)"#,
            #"CREATE TABLE IF NOT EXISTS "Z_RELATIONSHIPLISTS" ("Z_KEY" text COLLATE "C" NOT NULL, "#
                + #""Z_POSITION" integer NOT NULL, "Z_MEMBER" text COLLATE "C" NOT NULL, PRIMARY KEY ("Z_KEY", "Z_POSITION"))"#,
            #"CREATE TABLE IF NOT EXISTS "Z_CHANGES" ("Z_TXID" bigserial PRIMARY KEY, "Z_CLIENT" text NOT NULL, "#
                + #""Z_PROCESS" text, "Z_AUTHOR" text, "Z_CONTEXT" text, "Z_TIME" timestamptz NOT NULL DEFAULT now(), "#
                + #""Z_INSERTED" text[] NOT NULL, "Z_UPDATED" text[] NOT NULL, "Z_DELETED" text[] NOT NULL, "#
                + #""Z_LISTS" text[] NOT NULL)"#,
            // The newest transaction number a history purge removed (one row, once there was a purge): a client
            // that had not seen the purged transactions reads everything again.
            Self.externalDataTable,
            // Every value written gets a new ID (so that a reference to an older value is never answered with a
            // newer one); added to tables made before there were IDs.
            #"CREATE SEQUENCE IF NOT EXISTS "Z_EXTERNALVALUEID""#,
            // (Checked first: ALTER TABLE would lock the table against other clients' reads even when it has one.)
            #"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = "#
                + #"current_schema() AND table_name = 'Z_EXTERNALDATA' AND column_name = 'Z_VALUEID') THEN "#
                + #"ALTER TABLE "Z_EXTERNALDATA" ADD COLUMN "Z_VALUEID" bigint NOT NULL "#
                + #"DEFAULT nextval('"Z_EXTERNALVALUEID"'); END IF; END $$"#,
            #"CREATE TABLE IF NOT EXISTS "Z_PURGED" ("Z_ONE" integer PRIMARY KEY CHECK ("Z_ONE" = 1), "#
                + #""Z_THROUGH" bigint NOT NULL)"#,
            // The transaction number at which a restore last replaced the store's contents (one row, once there was
            // one): a client that has not read past it refuses to save until it has read everything again.
            #"CREATE TABLE IF NOT EXISTS "Z_RESTORED" ("Z_ONE" integer PRIMARY KEY CHECK ("Z_ONE" = 1), "#
                + #""Z_THROUGH" bigint NOT NULL)"#,
        ]
        for entity in model.entities where !entity.isAbstract {
            var columns = [#""Z_PK" bigint PRIMARY KEY"#, #""Z_ENT" integer NOT NULL"#, #""Z_OPT" bigint NOT NULL"#]
            for (_, attribute) in Self.storedAttributes(entity) {
                columns.append(Self.column(attribute) + " " + PostgresValueCoding.columnType(attribute.attributeType))
                if let folded = Self.foldedColumn(attribute) { columns.append(folded + #" text COLLATE "C""#) }
            }
            for (_, name) in Self.storedToOnes(entity) { columns.append(Self.column(name) + #" text COLLATE "C""#) }
            statements.append("CREATE TABLE IF NOT EXISTS \(Self.table(entity)) (\(columns.joined(separator: ", ")))")
            statements += uniqueIndexStatements(entity)
        }
        for entity in model.entities where entity.parentEntityName == nil {
            statements.append(#"INSERT INTO "Z_PRIMARYKEY" ("Z_NAME", "Z_MAX") VALUES ('"#
                + entity.name.replacingOccurrences(of: "'", with: "''") + #"', 0) ON CONFLICT DO NOTHING"#)
        }
        return statements
    }
}

extension PostgresSchema {
    /// One unique index per uniqueness constraint of `entity` or its ancestors (as the SQLite store has), over the
    /// constraint's stored attributes: so that two clients whose copies had not yet seen each other's object
    /// cannot both save it (the second save fails with the server's message).
    func uniqueIndexStatements(_ entity: EntityDescription) -> [String] {
        var constraints: [[String]] = []
        var current: EntityDescription? = entity
        while let declaring = current {
            constraints += declaring.uniquenessConstraints
            current = declaring.parentEntityName.flatMap(model.entity(named:))
        }
        let stored = Set(Self.storedAttributes(entity).map(\.attribute.name))
        return constraints.compactMap { constraint in
            let names = constraint.filter(stored.contains)
            guard !names.isEmpty, names.count == constraint.count else { return nil }
            let index = PostgresSQL.identifier("Z_\(entity.name)_UNIQUE_" + names.joined(separator: "_"))
            return "CREATE UNIQUE INDEX IF NOT EXISTS \(index) ON \(Self.table(entity)) ("
                + names.map(Self.column).joined(separator: ", ") + ")"
        }
    }
}

/// `Entity/pk` references to objects, as the store's text columns and change log keep them.
enum PostgresReference {
    static func string(_ id: ManagedObjectID) -> String? { id.primaryKey.map { "\(id.entityName)/\($0)" } }

    static func parse(_ text: String) -> (entityName: String, primaryKey: Int64)? {
        guard let slash = text.lastIndex(of: "/"), let key = Int64(text[text.index(after: slash)...]) else { return nil }
        return (String(text[..<slash]), key)
    }

    /// The elements of a text array in PostgreSQL's output format (`{a,"b c"}`).
    static func parseArray(_ text: String?) -> [String] {
        guard let text, text.hasPrefix("{"), text.hasSuffix("}") else { return [] }
        var result: [String] = []
        var current = ""
        var quoted = false, escaped = false, started = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "\\" { escaped = true } else if character == "\"" { quoted = false } else { current.append(character) }
            } else if character == "\"" {
                quoted = true
                started = true
            } else if character == "," {
                result.append(current)
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started || !current.isEmpty { result.append(current) }
        return result
    }
}

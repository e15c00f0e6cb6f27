import ObjectGraph

/// The text search indexes of a PostgreSQL store: for each table whose entity has string attributes marked for the
/// text search index (``AttributeDescription/isIndexedBySpotlight``, "Index in Spotlight"), one `pg_trgm` GIN index
/// over their folded-text columns (``PostgresSchema/foldedColumn(_:)``), named `Z_<Entity>_TEXTINDEX`: what the
/// SQLite store's FTS5 trigram index is to it.
///
/// `CONTAINS`, `BEGINSWITH`, `ENDSWITH` and `LIKE` with `[cd]` compile to `LIKE` over the folded column, which such an
/// index answers for patterns with a run of three characters; the server still tests every candidate, so answers
/// do not depend on the index. `pg_trgm` ships with PostgreSQL and is a trusted extension: a client that may create
/// objects in the database installs it. Where it cannot (the extension is not installed on the server, or the role
/// may not create it), the store works as before, scanning.
///
/// A writable client brings the indexes in line with its model when it opens the store, under the writers' lock:
/// it creates the missing ones (on a large table once, 11 s for a million people here) and drops those the model no
/// longer asks for. The indexes are not in the version hashes, so changing which attributes are indexed needs no
/// migration, as with SQLite.
enum PostgresTextIndexes {
    /// One table's index: its name (unquoted), table (quoted) and folded-text columns (quoted), sorted.
    struct Index: Equatable {
        let name: String
        let table: String
        let columns: [String]

        /// The statement creating it. (A longer pending list makes an import pay for the index in fewer, larger
        /// steps: at 100k people 1.7× an import without it instead of 2.1×.)
        var creation: String {
            "CREATE INDEX IF NOT EXISTS \(PostgresSQL.identifier(name)) ON \(table) USING gin ("
                + columns.map { "\($0) gin_trgm_ops" }.joined(separator: ", ")
                + ") WITH (gin_pending_list_limit = 65536)"
        }
    }

    /// The suffix of every text index's name.
    static let suffix = "_TEXTINDEX"

    /// The indexes a store of `model` has: one per concrete entity with an indexed stored string attribute (its own
    /// or inherited) that has a folded-text column.
    static func expected(_ model: ManagedObjectModel) -> [Index] {
        model.entities.filter { !$0.isAbstract }.compactMap { entity in
            let columns = PostgresSchema.storedAttributes(entity).compactMap { _, attribute in
                attribute.isIndexedBySpotlight ? PostgresSchema.foldedColumn(attribute) : nil
            }
            guard !columns.isEmpty else { return nil }
            return Index(name: "Z_\(entity.name)" + suffix, table: PostgresSchema.table(entity), columns: columns.sorted())
        }
    }

    /// The text indexes the connection's current schema has, by name, with their folded-text columns, sorted.
    static func present(on connection: PostgresConnection) throws(ObjectGraphError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        let rows = try connection.execute(#"SELECT i.relname, a.attname FROM pg_index x "#
            + #"JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace "#
            + #"JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY (x.indkey) "#
            + #"WHERE n.nspname = current_schema() AND i.relname LIKE 'Z\_%\_TEXTINDEX'"#)
        for row in rows {
            guard row.count >= 2, let name = row[0], let column = row[1] else { continue }
            result[name, default: []].append(PostgresSQL.identifier(column))
        }
        return result.mapValues { $0.sorted() }
    }

    /// Whether every index `model` asks for is in place (false where the server has no `pg_trgm`).
    static func complete(_ model: ManagedObjectModel, on connection: PostgresConnection) throws(ObjectGraphError)
        -> Bool
    {
        let present = try present(on: connection)
        return expected(model).allSatisfy { present[$0.name] == $0.columns }
    }

    /// Creates the indexes `model` asks for that are missing and drops the other text indexes, in the caller's
    /// transaction (which holds the creation lock), taking the writers' lock first when it changes anything. Without
    /// `pg_trgm` (it cannot be created here) no index is made.
    static func reconcile(_ model: ManagedObjectModel, on connection: PostgresConnection) throws(ObjectGraphError) {
        let wanted = expected(model)
        let present = try present(on: connection)
        let stale = present.filter { name, columns in !wanted.contains { $0.name == name && $0.columns == columns } }
        let missing = wanted.filter { present[$0.name] != $0.columns }
        guard !stale.isEmpty || !missing.isEmpty else { return }
        try connection.execute("SELECT pg_advisory_xact_lock(7301002)")
        for name in stale.keys.sorted() { try connection.execute("DROP INDEX IF EXISTS \(PostgresSQL.identifier(name))") }
        guard !missing.isEmpty else { return }
        // Under a savepoint: a server without the extension, a role that may not create it, or an extension installed
        // where this schema does not see its operator classes leaves the transaction as it was, and the store scans.
        try connection.execute("SAVEPOINT objectgraph_text_indexes")
        do throws(ObjectGraphError) {
            try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            for index in missing { try connection.execute(index.creation) }
            try connection.execute("RELEASE SAVEPOINT objectgraph_text_indexes")
        } catch {
            guard case .storeFailed = error else { throw error }  // (a broken connection is not "no extension")
            try connection.execute("ROLLBACK TO SAVEPOINT objectgraph_text_indexes")
        }
    }
}

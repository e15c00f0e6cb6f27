import Foundation
import Synchronization
@_spi(StoreImplementation) import ObjectGraph

/// Fetches and counts the server answers: the predicate and the sort order compiled to PostgreSQL
/// (``PostgresPredicateCompiler``), run on the server, the rows then taken from the replica at the same commit.
extension PostgresStore {
    /// A fetch or count compiled for the server.
    struct ServerQuery {
        /// The statement: rows of `(entity position, Z_PK, Z_OPT)` in the fetch's order, or one count.
        var sql: String
        var parameters: [String?]
        /// The concrete entities whose tables the statement reads, by position.
        var entities: [EntityDescription]
        /// Whether no table can hold a matching row (the statement need not run).
        var isEmpty: Bool
    }

    /// How many fetches and counts the server answered, and how many the replica answered because they had no exact
    /// translation or the server could not be asked, and how many compiled statements the server refused (for tests:
    /// a refusal is a translation bug, answered by the replica).
    var serverQueryTally: (server: Int, replica: Int, failed: Int) {
        queryTally.withLock { ($0.server, $0.replica, $0.failed) }
    }

    /// `request` compiled for the server (`counting`: its number of rows); nil when some part of its predicate or sort
    /// has no exact translation.
    func serverQuery(for request: StoreFetchRequest, counting: Bool) -> ServerQuery? {
        let candidates = request.includesSubentities ? model.entityAndDescendants(of: request.entity) : [request.entity]
        let entities = candidates.filter { !$0.isAbstract }
        var compiler = PostgresPredicateCompiler(model: model, storeIdentifier: identifier,
            hasFoldedColumns: hasFoldedColumns)
        var parts: [String] = []
        for (position, entity) in entities.enumerated() {
            guard let condition = compiler.condition(request.predicate, forTableOf: entity) else { return nil }
            var columns: [String] = []
            for criterion in request.sortCriteria {
                guard let column = sortColumn(criterion, of: entity) else { return nil }
                columns.append(column)
            }
            guard condition != "FALSE" else { continue }
            let table = PostgresSchema.table(entity) + " AS " + PostgresPredicateCompiler.rowAlias
            let row = PostgresPredicateCompiler.rowAlias
            if counting {
                parts.append("SELECT count(*) AS n FROM \(table) WHERE \(condition)")
            } else {
                let sorts = columns.enumerated().map { ", \($0.element) AS s\($0.offset)" }.joined()
                parts.append(#"SELECT \#(position) AS e, \#(row)."Z_PK" AS pk, \#(row)."Z_OPT" AS v\#(sorts) FROM \#(table) "#
                    + "WHERE \(condition)")
            }
        }
        let union = parts.map { "(\($0))" }.joined(separator: " UNION ALL ")
        var sql: String
        if counting {
            sql = "SELECT coalesce(sum(n), 0)::int8 FROM (\(union)) AS counted"
        } else {
            let order = request.sortCriteria.enumerated().map { index, criterion in
                criterion.ascending ? "s\(index) ASC NULLS FIRST" : "s\(index) DESC NULLS LAST"
            }
            sql = "SELECT e, pk, v FROM (\(union)) AS matched ORDER BY " + (order + ["pk"]).joined(separator: ", ")
            if request.fetchLimit > 0 { sql += " LIMIT \(request.fetchLimit)" }
            if request.fetchOffset > 0 { sql += " OFFSET \(request.fetchOffset)" }
        }
        return ServerQuery(sql: sql, parameters: compiler.parameters, entities: entities, isEmpty: parts.isEmpty)
    }

    /// The column a sort criterion orders the rows of `entity` by, giving memory's order
    /// (``SortCriterion/sortKey(for:)`` compared as ``AttributeValue/storeOrder(comparedTo:)``); nil when the
    /// server has none (localized and `[c]` comparisons, decimals, data, to-many key paths).
    func sortColumn(_ criterion: SortCriterion, of entity: EntityDescription) -> String? {
        guard case .column(let column)? = PostgresPredicateCompiler.side(forKeyPath: criterion.key, of: entity,
            model: model, hasFoldedColumns: hasFoldedColumns)
        else { return nil }
        switch column.type {
        case .integer16, .integer32, .integer64, .double, .float, .date, .boolean, .uri:
            // (Non-string values sort as they are, whatever the comparison; URLs by their text's bytes.)
            return column.sql
        case .string:
            switch criterion.comparison {
            case .binary: return column.sql
            case .caseAndDiacriticInsensitive: return column.folded
            default: return nil
            }
        case .decimal, .binary, .uuid, .transformable, .undefined, .composite:
            return nil
        }
    }

    /// The rows `request` selects, when the server can answer it: compiled, run at the newest commit, and matched
    /// with the replica's rows at that same commit. Nil when the replica must answer (no exact translation, the
    /// server out of reach, another client's migration).
    func serverFetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot]? {
        // Every row by key has nothing to translate: the replica holds exactly those rows, and hands them over
        // without a round trip.
        guard request.predicate != nil || !request.sortCriteria.isEmpty else { return nil }
        try validate(request)
        guard let query = serverQuery(for: request, counting: false) else { return countReplicaAnswer() }
        if query.isEmpty { return countServerAnswer([]) }
        return try withLock { () throws(ObjectGraphError) -> [RowSnapshot]? in
            guard let rows = try runAtReplicaCommit(query) else { return countReplicaAnswer() }
            var ids: [ManagedObjectID] = []
            var versions: [Int64] = []
            ids.reserveCapacity(rows.count)
            versions.reserveCapacity(rows.count)
            for row in rows {
                guard let position = row[0].flatMap({ Int($0) }), query.entities.indices.contains(position),
                    let key = row[1].flatMap({ Int64($0) }), let version = row[2].flatMap({ Int64($0) })
                else { return countFailure() }
                ids.append(replicaStorage.objectID(entityName: query.entities[position].name, primaryKey: key))
                versions.append(version)
            }
            // The replica reflects the same commits as the answer, so every row is there at the same version.
            let snapshots = try replicaStorage.rows(for: ids, entity: request.entity)
            guard snapshots.count == ids.count,
                zip(snapshots, zip(ids, versions)).allSatisfy({ $0.objectID == $1.0 && $0.version == $1.1 })
            else { return countFailure() }
            return countServerAnswer(snapshots)
        }
    }

    /// The number of rows `request` selects, when the server can answer it (as ``serverFetch(_:)``).
    func serverCount(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int? {
        guard request.predicate != nil else { return nil }
        try validate(request)
        guard let query = serverQuery(for: request, counting: true) else { return countReplicaAnswer() }
        let total: Int
        if query.isEmpty {
            total = 0
        } else {
            let answer = try withLock { () throws(ObjectGraphError) -> Int? in
                guard let rows = try runAtReplicaCommit(query) else { return nil }
                return rows.first?[0].flatMap { Int($0) }
            }
            guard let answer else { return countReplicaAnswer() }
            total = answer
        }
        // (As the other stores count: up to the limit, the offset not applied.)
        return countServerAnswer(request.fetchLimit > 0 ? min(total, request.fetchLimit) : total)
    }

    /// Refuses what memory refuses, before the server sees it: predicates that do not fit the model.
    private func validate(_ request: StoreFetchRequest) throws(ObjectGraphError) {
        do {
            try request.predicate?.validate(for: request.entity, in: model)
        } catch {
            throw .predicate(error)
        }
    }

    /// Runs `query` in one snapshot of the server that the replica reflects exactly: in one round trip, the newest
    /// transaction number and the query's answer are read in one read-only transaction; when the replica lacks some
    /// of those commits, it applies them and the query runs again. Call holding ``lock``. Nil when the server cannot
    /// answer now (it is out of reach, the store was migrated away, or commits kept coming).
    private func runAtReplicaCommit(_ query: ServerQuery) throws(ObjectGraphError) -> PostgresConnection.Rows? {
        try reloadIfNeeded()
        guard !migratedAway, writer.isConnected else { return nil }
        for _ in 0..<3 {
            do throws(ObjectGraphError) {
                let results = try writer.pipeline([
                    PostgresConnection.Statement("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
                    PostgresConnection.Statement(Self.newestTransactionQuery),
                    PostgresConnection.Statement(query.sql, query.parameters),
                    PostgresConnection.Statement("COMMIT"),
                ])
                let newest = Self.newestTransaction(in: results[1].rows)
                if newest == lastTransaction { return results[2].rows }
                guard newest > lastTransaction else { return nil }
                publish(try applyNewCommits(on: writer))
                guard !migratedAway else { return nil }
            } catch {
                _ = try? writer.execute("ROLLBACK")
                if writer.isConnected { queryTally.withLock { $0.failed += 1 } }
                return nil
            }
        }
        return nil
    }

    private func countServerAnswer<T>(_ answer: T) -> T {
        queryTally.withLock { $0.server += 1 }
        return answer
    }

    private func countReplicaAnswer<T>() -> T? {
        queryTally.withLock { $0.replica += 1 }
        return nil
    }

    private func countFailure<T>() -> T? {
        queryTally.withLock { $0.failed += 1 }
        return nil
    }
}

/// The counts behind ``PostgresStore/serverQueryTally``.
struct ServerQueryTally {
    var server = 0
    var replica = 0
    var failed = 0
}

import CLibPQ
import ObjectGraph

extension PostgresConnection {
    /// One statement of a ``pipeline(_:)``: SQL with text parameters (`$1`, `$2`, …; nil for NULL).
    struct Statement {
        let sql: String
        let parameters: [String?]

        init(_ sql: String, _ parameters: [String?] = []) {
            self.sql = sql
            self.parameters = parameters
        }
    }

    /// Runs `statements` in order in one round trip (libpq's pipeline mode) and returns each one's rows and
    /// changed-row count.
    ///
    /// A save is a handful of statements that do not depend on each other's answers (its inserts, its log row,
    /// `COMMIT`); sent one by one, each costs a round trip to the server, which at a hundred objects per save
    /// took as long as writing them. The server runs them as it would one by one: when one fails, those after
    /// it are skipped (the transaction they are in is aborted; the caller rolls it back) and the first failure
    /// is thrown, typed as ``execute(_:_:)`` types it. A connection that breaks on the way is dropped, so that
    /// the next ``ensureConnected()`` opens a new one.
    @discardableResult
    func pipeline(_ statements: [Statement]) throws(ObjectGraphError) -> [(rows: Rows, changed: Int)] {
        guard !statements.isEmpty else { return [] }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw .storeUnavailable(store: displayName, reason: "not connected to the server")
        }
        guard PQenterPipelineMode(connection) == 1 else {
            throw .storeFailed(store: displayName, reason: "libpq refused pipeline mode: "
                + Self.message(PQerrorMessage(connection)))
        }
        /// Drops a connection left in an unknown state, and reports why.
        func broken() -> ObjectGraphError {
            let reason = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            self.connection = nil
            return .storeUnavailable(store: displayName, reason: reason)
        }
        for statement in statements {
            let sent = Self.withCStrings(statement.parameters) { values in
                PQsendQueryParams(connection, statement.sql, Int32(statement.parameters.count), nil, values, nil, nil, 0)
            }
            guard sent == 1 else { throw broken() }
        }
        guard PQpipelineSync(connection) == 1 else { throw broken() }
        roundTrips += 1
        var outcomes: [(rows: Rows, changed: Int)] = []
        outcomes.reserveCapacity(statements.count)
        var firstFailure: ObjectGraphError?
        for _ in statements {
            // Each statement's result, then a NULL that ends it.
            guard let result = PQgetResult(connection) else { throw broken() }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                outcomes.append(([], 0))
            } else if let failure = failure(of: result, on: connection) {
                firstFailure = firstFailure ?? failure
                outcomes.append(([], 0))
            } else {
                outcomes.append(Self.outcome(of: result))
            }
            PQclear(result)
            while let extra = PQgetResult(connection) { PQclear(extra) }
            if PQstatus(connection) != CONNECTION_OK { throw broken() }
        }
        guard let sync = PQgetResult(connection) else { throw broken() }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(connection) == 1 else { throw broken() }
        if let firstFailure { throw firstFailure }
        return outcomes
    }
}

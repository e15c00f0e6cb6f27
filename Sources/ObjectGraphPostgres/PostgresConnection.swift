import CLibPQ
import Foundation
import ObjectGraph

/// One libpq connection (`PGconn`), used by one thread at a time (libpq's rule): the store guards each of its
/// connections with a lock.
///
/// Statements run synchronously. Parameters travel as text, results come back as text (nil for NULL). Errors
/// are typed: a broken connection is ``ObjectGraphError/storeUnavailable(store:reason:)``, anything the server
/// refused ``ObjectGraphError/storeFailed(store:reason:)``. Messages never carry the connection URI.
final class PostgresConnection {
    /// The rows of a result, as text (nil for NULL).
    typealias Rows = [[String?]]

    private let uri: String
    /// How errors name the store (the URI without its password).
    let displayName: String
    private var connection: OpaquePointer?

    /// Connects to `uri` (a libpq connection URI); a server that does not answer fails within `connect_timeout`.
    init(uri: String, displayName: String) throws(ObjectGraphError) {
        self.uri = uri
        self.displayName = displayName
        try connect()
    }

    deinit { PQfinish(connection) }

    /// Whether the connection is up, as far as libpq knows.
    var isConnected: Bool { connection.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server process of this connection (what `pg_terminate_backend` takes).
    var backendPID: Int32 { connection.map(PQbackendPID) ?? 0 }

    /// The connection's socket, for `poll` (-1 when there is none).
    var socket: Int32 { connection.map(PQsocket) ?? -1 }

    /// Opens a new connection, dropping the old one.
    func connect() throws(ObjectGraphError) {
        PQfinish(connection)
        connection = nil
        // A short connect timeout unless the URI sets one: a server that is down fails fast instead of hanging.
        let separator = uri.contains("?") ? "&" : "?"
        let full = uri.contains("connect_timeout") ? uri : uri + separator + "connect_timeout=5"
        guard let made = PQconnectdb(full) else {
            throw .storeUnavailable(store: displayName, reason: "libpq could not allocate a connection")
        }
        guard PQstatus(made) == CONNECTION_OK else {
            let reason = Self.message(PQerrorMessage(made))
            PQfinish(made)
            throw .storeUnavailable(store: displayName, reason: reason)
        }
        // Quiet: notices (such as "relation already exists, skipping") must not reach stderr.
        PQsetNoticeProcessor(made, { _, _ in }, nil)
        connection = made
    }

    /// Reconnects when the connection is known to be broken.
    func ensureConnected() throws(ObjectGraphError) {
        if !isConnected { try connect() }
    }

    /// Runs `sql` with text `parameters` ($1, $2, …; nil for NULL) and returns its rows.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(ObjectGraphError) -> Rows {
        try run(sql, parameters).rows
    }

    /// Runs statements without parameters, separated by `;`, in one round trip (`PQexec`).
    func executeScript(_ sql: String) throws(ObjectGraphError) {
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw .storeUnavailable(store: displayName, reason: "not connected to the server")
        }
        guard let result = PQexec(connection, sql) else {
            throw .storeUnavailable(store: displayName, reason: Self.message(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let reason = Self.message(PQresultErrorMessage(result))
            if PQstatus(connection) != CONNECTION_OK { throw .storeUnavailable(store: displayName, reason: reason) }
            throw .storeFailed(store: displayName, reason: reason)
        }
    }

    /// Runs `sql` and returns how many rows it changed (`PQcmdTuples`).
    func executeCount(_ sql: String, _ parameters: [String?] = []) throws(ObjectGraphError) -> Int {
        try run(sql, parameters).changed
    }

    private func run(_ sql: String, _ parameters: [String?]) throws(ObjectGraphError) -> (rows: Rows, changed: Int) {
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw .storeUnavailable(store: displayName, reason: "not connected to the server")
        }
        let result: OpaquePointer? = Self.withCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard let result else {
            throw .storeUnavailable(store: displayName, reason: Self.message(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let reason = Self.message(PQresultErrorMessage(result))
            if PQstatus(connection) != CONNECTION_OK {
                throw .storeUnavailable(store: displayName, reason: reason)
            }
            if let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))),  // PG_DIAG_SQLSTATE
                String(cString: state) == "23505"  // unique_violation
            {
                throw .uniqueConstraintViolated(store: displayName, reason: reason)
            }
            throw .storeFailed(store: displayName, reason: reason)
        }
        var rows: Rows = []
        let count = PQntuples(result), fields = PQnfields(result)
        rows.reserveCapacity(Int(count))
        for row in 0..<count {
            var values: [String?] = []
            values.reserveCapacity(Int(fields))
            for field in 0..<fields {
                if PQgetisnull(result, row, field) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, row, field)))
                }
            }
            rows.append(values)
        }
        let changed = Int(String(cString: PQcmdTuples(result))) ?? 0
        return (rows, changed)
    }

    /// Reads what the server sent without waiting, and returns the notifications received so far (channel,
    /// payload). Throws when the connection broke.
    func notifications() throws(ObjectGraphError) -> [(channel: String, payload: String)] {
        guard let connection else { throw .storeUnavailable(store: displayName, reason: "not connected to the server") }
        guard PQconsumeInput(connection) == 1 else {
            throw .storeUnavailable(store: displayName, reason: Self.message(PQerrorMessage(connection)))
        }
        var received: [(String, String)] = []
        while let notice = PQnotifies(connection) {
            received.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return received
    }

    /// A libpq message on one line, without the trailing newline.
    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let lines = String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.filter { !$0.isEmpty }.joined(separator: " / ")
    }

    /// Calls `body` with C strings for `strings` (NULL for nil), valid during the call.
    private static func withCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// Quoting for names that come from the model (never from user input).
enum PostgresSQL {
    /// `name` as a quoted identifier.
    static func identifier(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A text array literal (`{"a","b"}`) for a `$n::text[]` parameter.
    static func textArray(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }

    /// An integer array literal for a `$n::bigint[]` parameter.
    static func integerArray(_ values: [Int64]) -> String { "{" + values.map(String.init).joined(separator: ",") + "}" }
}

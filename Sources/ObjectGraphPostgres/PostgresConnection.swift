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
    /// The libpq connection; nil after a failure that left it unusable (the next ``ensureConnected()`` opens
    /// another).
    var connection: OpaquePointer?

    /// Connects to `uri` (a libpq connection URI); a server that does not answer fails within `connect_timeout`.
    init(uri: String, displayName: String) throws(ObjectGraphError) {
        self.uri = uri
        self.displayName = displayName
        try connect()
    }

    deinit { PQfinish(connection) }

    /// Whether the connection is up, as far as libpq knows.
    var isConnected: Bool { connection.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// How many times this connection has waited for the server: one per statement, script or pipeline.
    var roundTrips = 0

    /// The server process of this connection (what `pg_terminate_backend` takes).
    var backendPID: Int32 { connection.map(PQbackendPID) ?? 0 }

    /// The connection's socket, for `poll` (-1 when there is none).
    var socket: Int32 { connection.map(PQsocket) ?? -1 }

    /// Opens a new connection, dropping the old one.
    func connect() throws(ObjectGraphError) {
        PQfinish(connection)
        connection = nil
        guard let made = PQconnectdb(Self.connectionString(uri)) else {
            throw .storeUnavailable(store: displayName, reason: "libpq could not allocate a connection")
        }
        guard PQstatus(made) == CONNECTION_OK else {
            let reason = Self.message(PQerrorMessage(made))
            PQfinish(made)
            throw Self.connectionFailure(reason, store: displayName)
        }
        // Quiet: notices (such as "relation already exists, skipping") must not reach stderr.
        PQsetNoticeProcessor(made, { _, _ in }, nil)
        connection = made
    }

    /// The error of a connection libpq could not make, from its message `reason`: a server or network that may come
    /// back is ``ObjectGraphError/storeUnavailable(store:reason:)`` ("try again"); a refusal that trying again will not
    /// change — a database or role that does not exist, a password refused — is
    /// ``ObjectGraphError/storeFailed(store:reason:)``, and a connection option libpq does not take (`sslmode=bogus`)
    /// ``ObjectGraphError/invalidStoreOption(name:reason:)``.
    static func connectionFailure(_ reason: String, store: String) -> ObjectGraphError {
        if reason.hasPrefix("invalid ") || reason.contains("invalid connection option") || reason.contains("invalid URI") {
            return .invalidStoreOption(name: "connection URI", reason: reason)
        }
        let passing = ["starting up", "shutting down", "in recovery", "too many clients", "connection slots"]
        if reason.contains("FATAL:"), !passing.contains(where: reason.contains) {
            return .storeFailed(store: store, reason: reason)
        }
        return .storeUnavailable(store: store, reason: reason)
    }

    /// `uri` with the defaults ObjectGraph adds unless it sets them itself:
    /// - `connect_timeout=5`: a server that is down fails fast instead of hanging;
    /// - `gssencmode=disable`: libpq does not ask Kerberos for GSSAPI encryption on every connect. That probe runs
    ///   in libkrb5, whose global locks are torn down when a process exits; a process that ended (a short
    ///   `objectgraph query`) while its store's listener thread was still connecting aborted in `k5_mutex_lock`.
    ///   GSSAPI *authentication* is not affected; a URI that wants GSSAPI encryption says `gssencmode=prefer`.
    static func connectionString(_ uri: String) -> String {
        var full = uri
        for (name, value) in [("connect_timeout", "5"), ("gssencmode", "disable")] where !full.contains(name + "=") {
            full += (full.contains("?") ? "&" : "?") + name + "=" + value
        }
        return full
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
        roundTrips += 1
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
        try withResult(sql, parameters, Self.outcome(of:))
    }

    /// Runs `sql` with `parameters` and hands its successful result to `read` (the result is freed afterwards);
    /// a failure is thrown as ``failure(of:on:)`` types it.
    func withResult<Value>(_ sql: String, _ parameters: [String?], _ read: (OpaquePointer) -> Value)
        throws(ObjectGraphError) -> Value
    {
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            throw .storeUnavailable(store: displayName, reason: "not connected to the server")
        }
        roundTrips += 1
        let result: OpaquePointer? = Self.withCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard let result else {
            throw .storeUnavailable(store: displayName, reason: Self.message(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        if let error = failure(of: result, on: connection) { throw error }
        return read(result)
    }

    /// The error a statement's `result` reports, or nil when it succeeded: a broken connection is
    /// ``ObjectGraphError/storeUnavailable(store:reason:)``, a unique violation (SQLSTATE 23505)
    /// ``ObjectGraphError/uniqueConstraintViolated(store:reason:)``, anything else the server refused
    /// ``ObjectGraphError/storeFailed(store:reason:)``.
    func failure(of result: OpaquePointer, on connection: OpaquePointer) -> ObjectGraphError? {
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return nil }
        let reason = Self.message(PQresultErrorMessage(result))
        if PQstatus(connection) != CONNECTION_OK {
            return .storeUnavailable(store: displayName, reason: reason)
        }
        if let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))),  // PG_DIAG_SQLSTATE
            String(cString: state) == "23505"  // unique_violation
        {
            return .uniqueConstraintViolated(store: displayName, reason: reason)
        }
        return .storeFailed(store: displayName, reason: reason)
    }

    /// The rows of a successful `result` as text, and how many rows it changed (`PQcmdTuples`).
    static func outcome(of result: OpaquePointer) -> (rows: Rows, changed: Int) {
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
    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let lines = String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.filter { !$0.isEmpty }.joined(separator: " / ")
    }

    /// Calls `body` with C strings for `strings` (NULL for nil), valid during the call.
    static func withCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// Quoting for names that come from the model (never from user input).
enum PostgresSQL {
    /// `name` as a quoted identifier.
    static func identifier(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A text array literal (`{"a","b"}`) for a `$n::text[]` parameter: every element quoted, backslashes and
    /// double quotes escaped with a backslash.
    ///
    /// Built byte by byte: a save logs every object it touched in one such array, so at 100,000 objects
    /// Foundation's `replacingOccurrences` per element cost more than the rows' `INSERT`.
    static func textArray(_ values: [String]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + values.reduce(0) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A text array literal like ``textArray(_:)``'s whose nil elements are NULL.
    static func textArray(nullable values: [String?]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + values.reduce(0) { $0 + ($1?.utf8.count ?? 4) + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let value { appendQuoted(value, to: &bytes) } else { bytes += "NULL".utf8 }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as a quoted array element: backslashes and double quotes escaped with a backslash. PostgreSQL text
    /// cannot hold NUL: the element ends before one, as a parameter passed as a C string does.
    private static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == 0 { break }
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer array literal for a `$n::bigint[]` parameter.
    static func integerArray(_ values: [Int64]) -> String { "{" + values.map(String.init).joined(separator: ",") + "}" }
}

import Foundation
@_spi(StoreImplementation) import ObjectGraph

/// How a store reads the bytes of its large values (`Z_EXTERNALDATA`): on a connection of its own, opened on the
/// first read and reopened when the server dropped it, guarded by a lock of its own, so that reading a large value
/// never waits for a save or the listener (which hold the store's lock and use the writer connection), and a long
/// save never makes a read wait. libpq allows one thread per connection at a time: the lock is held for each whole
/// statement.
///
/// Reads need no snapshot shared with the replica: every reference names its value by ID, and a read returns bytes
/// only when the row still holds that very value (see ``StoredValueReference``).
///
/// Many references are read a batch per statement (``read(_:)``), each batch bounded in count and bytes.
final class PostgresValueReader: @unchecked Sendable {
    /// How a value is identified in `Z_EXTERNALDATA`.
    enum Identity: Sendable, Equatable {
        /// By the `Z_VALUEID` column (every database a read-write client of this version opened).
        case valueID
        /// By the transaction that wrote the row (`xmin`): a database made before value IDs existed, opened only
        /// read-only since (a read-only client never adds the column). A new value of a row is always written by
        /// a later transaction, so a reference to an older value is still never answered with newer bytes.
        case rowVersion
    }

    private let uri: String
    private let displayName: String
    /// The connection; nil until the first read. Guarded by ``lock``.
    private var connection: PostgresConnection?
    private let lock = NSLock()
    /// The database's ``Identity``, once known; guarded by ``identityLock`` (not ``lock``: a load under the store's
    /// lock asks for it and must not wait for a read).
    private var knownIdentity: Identity?
    private let identityLock = NSLock()

    /// At most this many values are read per statement…
    static let batchCount = 500
    /// …and at most this many bytes (unless one value is larger), so that a batch's result stays small.
    static let batchBytes = 16 << 20

    init(uri: String, displayName: String) {
        self.uri = uri
        self.displayName = displayName
    }

    /// How many times the reading connection has waited for the server (statements, for tests).
    var roundTrips: Int { lock.withLock { connection?.roundTrips ?? 0 } }

    /// The server process of the reading connection (0 before the first read; for tests that terminate it).
    var backendPID: Int32 { lock.withLock { connection?.backendPID ?? 0 } }

    /// The database's ``Identity``, asked on `connection` the first time (by whoever holds that connection).
    func identity(on connection: PostgresConnection) throws(ObjectGraphError) -> Identity {
        if let known = identityLock.withLock({ knownIdentity }) { return known }
        let rows = try connection.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = "
            + "current_schema() AND table_name = 'Z_EXTERNALDATA' AND column_name = 'Z_VALUEID'")
        let identity: Identity = rows.isEmpty ? .rowVersion : .valueID
        identityLock.withLock { knownIdentity = identity }
        return identity
    }

    /// The SQL expression of a value's identity in `Z_EXTERNALDATA` (qualified by `alias`), as a `bigint`.
    static func identityColumn(_ identity: Identity, alias: String = "") -> String {
        let prefix = alias.isEmpty ? "" : alias + "."
        switch identity {
        case .valueID: return prefix + #""Z_VALUEID""#
        case .rowVersion: return prefix + "xmin::text::bigint"
        }
    }

    /// The bytes of each of `references` (all of this store), in batches; each reference's outcome on its own: a
    /// value that is gone or was replaced, or a batch the server could not answer, fails only the references it
    /// concerns.
    func read(_ references: [StoredValueReference], path: (StoredValueReference) -> String)
        -> [StoredValueReference: Result<Data, ObjectGraphError>]
    {
        var outcomes: [StoredValueReference: Result<Data, ObjectGraphError>] = [:]
        var unique: [StoredValueReference] = []
        var seen = Set<StoredValueReference>()
        for reference in references where seen.insert(reference).inserted { unique.append(reference) }
        var start = 0
        while start < unique.count {
            var end = start, bytes = 0
            while end < unique.count, end - start < Self.batchCount,
                end == start || bytes + unique[end].byteCount <= Self.batchBytes
            {
                bytes += unique[end].byteCount
                end += 1
            }
            let batch = Array(unique[start..<end])
            do throws(ObjectGraphError) {
                lock.lock()
                defer { lock.unlock() }
                let found = try readBatch(batch)
                for (reference, outcome) in zip(batch, found) {
                    outcomes[reference] = outcome.mapError { reason in
                        .externalDataUnavailable(path: path(reference), reason: reason.text)
                    }
                }
            } catch {
                for reference in batch {
                    outcomes[reference] = .failure(.externalDataUnavailable(path: path(reference),
                        reason: "the server cannot give it (\(error.description))"))
                }
            }
            start = end
        }
        return outcomes
    }

    /// Why a value could not be read.
    struct Reason: Error {
        let text: String
    }

    /// `batch` read in one statement, each value's bytes or why not. Call holding ``lock``.
    private func readBatch(_ batch: [StoredValueReference]) throws(ObjectGraphError) -> [Result<Data, Reason>] {
        let connection: PostgresConnection
        if let open = self.connection {
            try open.ensureConnected()
            connection = open
        } else {
            connection = try PostgresConnection(uri: uri, displayName: displayName)
            self.connection = connection
        }
        let id = Self.identityColumn(try identity(on: connection), alias: "e")
        let rows = try connection.execute(#"SELECT k.n, \#(id), CASE WHEN \#(id) = k.id THEN e."Z_BYTES" END "#
            + #"FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS k(owner, attribute, id, n) "#
            + #"LEFT JOIN "Z_EXTERNALDATA" AS e ON e."Z_OWNER" = k.owner AND e."Z_ATTRIBUTE" = k.attribute"#,
            [PostgresSQL.textArray(batch.map(\.owner)), PostgresSQL.textArray(batch.map(\.attribute)),
                PostgresSQL.integerArray(batch.map(\.valueID))])
        var outcomes = [Result<Data, Reason>](repeating: .failure(Self.gone), count: batch.count)
        for row in rows {
            guard let position = row[0].flatMap({ Int($0) }).map({ $0 - 1 }), batch.indices.contains(position),
                let stored = row[1]
            else { continue }
            if case .binary(let data) = PostgresValueCoding.decode(row[2], as: .binary) {
                outcomes[position] = .success(data)
            } else {
                outcomes[position] = .failure(Reason(text: "a later save replaced it with value \(stored) (refresh the "
                    + "object to read that one)"))
            }
        }
        return outcomes
    }

    private static let gone = Reason(text: "the value is gone: a later save deleted its object or set the attribute "
        + "to nil or a small value (refresh the object to read what it holds now)")
}

import Foundation
@_spi(StoreImplementation) import ObjectGraph

/// Large values on demand: the replica, fetches and other clients' commits hold a ``StoredValueReference`` for every
/// value in `Z_EXTERNALDATA` (owner, attribute, the value's `Z_VALUEID` and size), and the bytes are read from the
/// server only when the attribute is read (``ManagedObject``), through ``ExternalValueReaders``.
@_spi(StoreImplementation)
extension PostgresStore: ExternalValueReading {
    /// The bytes `reference` names, read from `Z_EXTERNALDATA` on the server (one round trip) on the store's
    /// reading connection (`PostgresValueReader`): never waiting for a save or the listener, nor making them wait.
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` naming the store and value: the value
    ///   was replaced or removed (with its object) by a save since the reference was read, or the server cannot be
    ///   reached.
    public func readExternalValue(_ reference: StoredValueReference) throws(ObjectGraphError) -> Data {
        guard let outcome = readExternalValues([reference])[reference] else {
            throw .externalDataUnavailable(path: externalValuePath(reference), reason: "the store gave no answer")
        }
        return try outcome.get()
    }

    /// The bytes of each of `references`, read a batch of values per statement (`PostgresValueReader`), each
    /// reference's outcome on its own (as ``readExternalValue(_:)`` throws it).
    public func readExternalValues(_ references: [StoredValueReference])
        -> [StoredValueReference: Result<Data, ObjectGraphError>]
    {
        let outcomes = valueReader.read(references, path: externalValuePath)
        let read = outcomes.values.compactMap { try? $0.get() }
        if !read.isEmpty {
            externalReads.withLock { $0.count += read.count; $0.bytes += read.reduce(0) { $0 + $1.count } }
        }
        return outcomes
    }

    /// How errors name a value: the store, the table and the value.
    func externalValuePath(_ reference: StoredValueReference) -> String {
        "\(displayName) Z_EXTERNALDATA \(reference)"
    }

    /// How many values of `Z_EXTERNALDATA` this store has read, and their bytes (to check that fetching and
    /// following other clients read none).
    var externalValueReads: (count: Int, bytes: Int) {
        externalReads.withLock { ($0.count, $0.bytes) }
    }

    /// `request` with every large value that is not already this store's reference read into bytes (a file of an
    /// SQLite store, another store's value): done before a save takes ``lock``, so that no save waits on another
    /// store while holding it.
    func readingForeignReferences(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveRequest {
        try request.readingExternalValues { $0.storeIdentifier == identifier }
    }

    /// The reference to a value this store keeps.
    func reference(owner: String, attribute: String, valueID: Int64, byteCount: Int) -> StoredValueReference {
        StoredValueReference(storeIdentifier: identifier, opening: clientID, owner: owner, attribute: attribute,
            valueID: valueID, byteCount: byteCount)
    }

    /// Puts a reference in the slot of every value of `entity`'s external-storage attributes that lives in
    /// `Z_EXTERNALDATA` (all of the entity's when `all`, else those of these rows), in the rows of `entity` from
    /// `start` on; no value's bytes are read. Only rows with such values are replaced, so a table read into a larger
    /// array is not copied again.
    func attachExternalValues(to rows: inout [RowSnapshot], from start: Int, of entity: EntityDescription, all: Bool,
        on connection: PostgresConnection) throws(ObjectGraphError)
    {
        let external = PostgresSchema.externalAttributes(entity)
        guard !external.isEmpty, start < rows.count else { return }
        // octet_length of a bytea reads its size from the TOAST pointer, not the value.
        let identity = PostgresValueReader.identityColumn(try valueReader.identity(on: connection))
        let columns = #"SELECT "Z_OWNER", "Z_ATTRIBUTE", \#(identity), octet_length("Z_BYTES") FROM "Z_EXTERNALDATA" "#
        let found = all
            ? try connection.execute(columns + #"WHERE split_part("Z_OWNER", '/', 1) = $1"#, [entity.name])
            : try connection.execute(columns + #"WHERE "Z_OWNER" = ANY($1::text[])"#,
                [PostgresSQL.textArray(rows[start...].compactMap { PostgresReference.string($0.objectID) })])
        guard !found.isEmpty else { return }
        let indexes = Dictionary(external.map { ($0.attribute.name, $0.index) }) { first, _ in first }
        var positions: [String: Int] = [:]
        for position in start..<rows.count {
            if let owner = PostgresReference.string(rows[position].objectID) { positions[owner] = position }
        }
        for value in found {
            guard let owner = value[0], let name = value[1], let position = positions[owner], let index = indexes[name],
                let valueID = value[2].flatMap({ Int64($0) }), let size = value[3].flatMap({ Int($0) })
            else { continue }
            let row = rows[position]
            var values = row.values
            values[index] = reference(owner: owner, attribute: name, valueID: valueID, byteCount: size).attributeValue
            rows[position] = RowSnapshot(objectID: row.objectID, values: values, version: row.version, toOne: row.toOne)
        }
    }

    /// `request` (whose inserts carry their permanent IDs) with the values `written` put in `Z_EXTERNALDATA` as
    /// references, for the replica, and those references by object and attribute index, for the saving context
    /// (``StoreSaveResult/externalValues``).
    func withReferences(_ written: [StoredValueReference], in request: StoreSaveRequest)
        -> (request: StoreSaveRequest, references: [ManagedObjectID: [Int: AttributeValue]])
    {
        guard !written.isEmpty else { return (request, [:]) }
        var byOwner: [String: [String: StoredValueReference]] = [:]
        for reference in written { byOwner[reference.owner, default: [:]][reference.attribute] = reference }
        var result = request
        var references: [ManagedObjectID: [Int: AttributeValue]] = [:]
        func substitute(_ values: [AttributeValue], _ id: ManagedObjectID, _ entity: EntityDescription) -> [AttributeValue]? {
            guard let owner = PostgresReference.string(id), let stored = byOwner[owner] else { return nil }
            var values = values
            for (index, attribute) in PostgresSchema.externalAttributes(entity) where index < values.count {
                guard let reference = stored[attribute.name] else { continue }
                values[index] = reference.attributeValue
                references[id, default: [:]][index] = values[index]
            }
            return values
        }
        for (position, insert) in request.inserts.enumerated() {
            guard let id = insert.permanentID, let values = substitute(insert.values, id, insert.entity) else { continue }
            result.inserts[position] = StoreSaveRequest.Insert(temporaryID: insert.temporaryID, entity: insert.entity,
                values: values, toOne: insert.toOne, permanentID: id)
        }
        for (position, update) in request.updates.enumerated() {
            guard let values = substitute(update.values, update.objectID, update.entity) else { continue }
            result.updates[position] = StoreSaveRequest.Update(objectID: update.objectID, entity: update.entity,
                values: values, expectedVersion: update.expectedVersion, toOne: update.toOne)
        }
        return (result, references)
    }
}

/// The `Z_EXTERNALDATA` changes of one save: values of external-storage attributes from the threshold on go there
/// (their entity column gets NULL), smaller ones replace what an updated object had there, and deleted objects'
/// values go. A reference to the very value the object has there is kept (nothing is written or sent again); a
/// reference to another object's value of this store is copied on the server.
struct ExternalWrites {
    /// The store's UUID: references with it are this store's.
    let store: String
    /// The store's opening (``PostgresStore/clientID``), which new references name.
    let opening: String
    /// How errors name the store.
    let displayName: String
    private var stored: [(owner: String, attribute: String, data: Data)] = []
    private var copied: [(owner: String, attribute: String, source: StoredValueReference)] = []
    private var kept: [StoredValueReference] = []
    private var cleared: [(owner: String, attribute: String)] = []
    /// The objects whose external values all go.
    var removedOwners: [String] = []

    init(store: String, opening: String, displayName: String) {
        self.store = store
        self.opening = opening
        self.displayName = displayName
    }

    /// The value to write to the entity column for `value` of `attribute` of `owner`, recording where the value
    /// goes: NULL when it goes to (or stays in) `Z_EXTERNALDATA`. `replacing`: the row existed (its old external
    /// value goes).
    mutating func route(_ value: AttributeValue, of attribute: AttributeDescription, owner: String?, threshold: Int,
        replacing: Bool) -> AttributeValue
    {
        guard attribute.allowsExternalBinaryDataStorage, let owner else { return value }
        if let reference = StoredValueReference(value), reference.storeIdentifier == store {
            if replacing, reference.owner == owner, reference.attribute == attribute.name {
                kept.append(reference)
            } else {
                copied.append((owner, attribute.name, reference))
            }
            return .null
        }
        if case .binary(let data) = value, data.count >= threshold {
            stored.append((owner, attribute.name, data))
            return .null
        }
        if replacing { cleared.append((owner, attribute.name)) }
        return value
    }

    /// The statements that make the changes, in the caller's transaction (pipelined with the save's others): first a
    /// check that every kept value is still there, then the copies (a source may be replaced below), the removals,
    /// and the new values. ``references(from:)`` reads their outcomes.
    var statements: [PostgresConnection.Statement] {
        var statements: [PostgresConnection.Statement] = []
        if !kept.isEmpty {
            statements.append(PostgresConnection.Statement(#"SELECT e."Z_VALUEID" FROM "Z_EXTERNALDATA" AS e "#
                + #"JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS k(owner, attribute, id) ON "#
                + #"e."Z_OWNER" = k.owner AND e."Z_ATTRIBUTE" = k.attribute AND e."Z_VALUEID" = k.id"#,
                [PostgresSQL.textArray(kept.map(\.owner)), PostgresSQL.textArray(kept.map(\.attribute)),
                    PostgresSQL.integerArray(kept.map(\.valueID))]))
        }
        for copy in copied {
            statements.append(PostgresConnection.Statement(
                #"INSERT INTO "Z_EXTERNALDATA" ("Z_OWNER", "Z_ATTRIBUTE", "Z_BYTES") SELECT $1, $2, "Z_BYTES" "#
                    + #"FROM "Z_EXTERNALDATA" WHERE "Z_OWNER" = $3 AND "Z_ATTRIBUTE" = $4 AND "Z_VALUEID" = $5 "#
                    + Self.upsert,
                [copy.owner, copy.attribute, copy.source.owner, copy.source.attribute, String(copy.source.valueID)]))
        }
        if !removedOwners.isEmpty {
            statements.append(PostgresConnection.Statement(
                #"DELETE FROM "Z_EXTERNALDATA" WHERE "Z_OWNER" = ANY($1::text[])"#, [PostgresSQL.textArray(removedOwners)]))
        }
        if !cleared.isEmpty {
            statements.append(PostgresConnection.Statement(
                #"DELETE FROM "Z_EXTERNALDATA" AS e USING unnest($1::text[], $2::text[]) "#
                    + #"AS c(owner, attribute) WHERE e."Z_OWNER" = c.owner AND e."Z_ATTRIBUTE" = c.attribute"#,
                [PostgresSQL.textArray(cleared.map(\.owner)), PostgresSQL.textArray(cleared.map(\.attribute))]))
        }
        for value in stored {
            statements.append(PostgresConnection.Statement(
                #"INSERT INTO "Z_EXTERNALDATA" ("Z_OWNER", "Z_ATTRIBUTE", "Z_BYTES") VALUES ($1, $2, $3) "# + Self.upsert,
                [value.owner, value.attribute, PostgresValueCoding.encode(.binary(value.data), as: .binary)]))
        }
        return statements
    }

    /// The references of the values ``statements`` stored or copied, from their `outcomes` (in order).
    ///
    /// - Throws: ``ObjectGraphError/externalDataUnavailable(path:reason:)`` when a kept or copied value is no longer
    ///   there (another client replaced or removed it): the caller rolls the save back.
    func references<Outcomes: Collection>(from outcomes: Outcomes) throws(ObjectGraphError) -> [StoredValueReference]
    where Outcomes.Element == (rows: PostgresConnection.Rows, changed: Int) {
        func gone(_ reference: StoredValueReference) -> ObjectGraphError {
            .externalDataUnavailable(path: "\(displayName) Z_EXTERNALDATA \(reference)",
                reason: "another client's save replaced or removed it; refresh the object and save again")
        }
        var outcomes = outcomes.makeIterator()
        func valueID(_ outcome: (rows: PostgresConnection.Rows, changed: Int)?) -> Int64? {
            outcome?.rows.first?[0].flatMap { Int64($0) }
        }
        if !kept.isEmpty {
            let present = Set((outcomes.next()?.rows ?? []).compactMap { $0[0].flatMap { Int64($0) } })
            if let missing = kept.first(where: { !present.contains($0.valueID) }) { throw gone(missing) }
        }
        var written: [StoredValueReference] = []
        for copy in copied {
            guard let id = valueID(outcomes.next()) else { throw gone(copy.source) }
            written.append(StoredValueReference(storeIdentifier: store, opening: opening, owner: copy.owner,
                attribute: copy.attribute, valueID: id, byteCount: copy.source.byteCount))
        }
        if !removedOwners.isEmpty { _ = outcomes.next() }
        if !cleared.isEmpty { _ = outcomes.next() }
        for value in stored {
            guard let id = valueID(outcomes.next()) else {
                throw .storeFailed(store: displayName, reason: "Z_EXTERNALDATA gave no value ID")
            }
            written.append(StoredValueReference(storeIdentifier: store, opening: opening, owner: value.owner,
                attribute: value.attribute, valueID: id, byteCount: value.data.count))
        }
        return written
    }

    /// The end of an insert into `Z_EXTERNALDATA`: a value replaces the one the object had there, with a new ID.
    private static let upsert = #"ON CONFLICT ("Z_OWNER", "Z_ATTRIBUTE") DO UPDATE SET "Z_BYTES" = EXCLUDED."Z_BYTES", "#
        + #""Z_VALUEID" = EXCLUDED."Z_VALUEID" RETURNING "Z_VALUEID""#
}

/// How many `Z_EXTERNALDATA` values a store has read, and their bytes.
final class ExternalReadTally: @unchecked Sendable {
    private let lock = NSLock()
    private var value = (count: 0, bytes: 0)

    /// Runs `body` with exclusive access to the counts.
    func withLock<T>(_ body: (inout (count: Int, bytes: Int)) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

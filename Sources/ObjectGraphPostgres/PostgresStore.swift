import Foundation
import Synchronization
@_spi(StoreImplementation) import ObjectGraph

/// A store in a PostgreSQL 15+ database, reached through libpq: ObjectGraph's ``IncrementalStore`` on a server
/// that several processes on several hosts share.
///
/// The server holds the rows and decides every save: one transaction per save, optimistic locking by row
/// version (`Z_OPT`), primary keys from `Z_PRIMARYKEY` that no two clients ever share. Fetches and counts whose
/// predicate and sort order translate exactly to PostgreSQL are answered by the server (`PostgresPredicateCompiler`,
/// `PostgresStore+ServerQueries.swift`); the rest, and dictionary results, by a ``StoreReplica`` of the rows kept
/// in this process — so every answer is exactly the in-memory store's (case- and diacritic-insensitive
/// comparisons, `LIKE`, `MATCHES`, the folded sort order). The replica also supplies the rows of a server's answer,
/// at the same commit. It follows other clients' commits through `LISTEN`/`NOTIFY` and the
/// `Z_CHANGES` log (see ``RemoteChangeObservingStore``). Large values of external-storage attributes (in
/// `Z_EXTERNALDATA`) are the exception: the replica holds a reference to each, and its bytes are read from the
/// server when the attribute is read, on a connection of their own that never waits for saves, many values a batch
/// per statement (see `PostgresStore+ExternalData.swift` and `PostgresValueReader`).
///
/// Open it through a coordinator after ``register()``:
///
/// ```swift
/// PostgresStore.register()
/// try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil,
///     at: URL(string: "postgresql://app@db.example.com:5432/people")!, options: PersistentStoreOptions())
/// ```
public final class PostgresStore: RemoteChangeObservingStore, @unchecked Sendable {
    /// The store's UUID, which its object IDs name.
    public let identifier: String
    /// Whether the store refuses writes.
    public let isReadOnly: Bool
    let model: ManagedObjectModel
    /// How errors name the store: its URI without a password.
    let displayName: String
    let uri: String
    /// This client's name in `Z_CHANGES`, so its own commits are not reported back to it.
    let clientID = UUID().uuidString
    /// The connection for saves, key allocation, metadata and (re)loading; guarded by ``lock``. (Large values are read
    /// on ``valueReader``'s connection.)
    let writer: PostgresConnection
    /// Serialises saves with each other and with the listener's applying of other clients' commits.
    let lock = NSLock()
    let replicaStorage: StoreReplica
    /// Values of external-storage attributes from this many bytes on go to `Z_EXTERNALDATA`.
    let externalThreshold: Int
    /// Reads the bytes of large values on a connection of its own (never under ``lock``).
    let valueReader: PostgresValueReader
    /// How many values of `Z_EXTERNALDATA` were read (``externalValueReads``).
    let externalReads = ExternalReadTally()
    /// Who answered fetches and counts (``serverQueryTally``).
    let queryTally = Mutex(ServerQueryTally())
    /// Set when the replica may differ from the server (a commit whose outcome is unknown); guarded by ``lock``.
    var needsReload = false
    /// Set when another client migrated the store to another model version: the replica no longer follows it;
    /// guarded by ``lock``.
    var migratedAway = false
    /// The newest `Z_CHANGES` transaction the replica reflects; guarded by ``lock``.
    var lastTransaction: Int64 = 0
    /// The listener that keeps the replica up to date with other clients' commits; guarded by ``lock``.
    var listener: PostgresChangeListener?
    /// Who hears of other clients' commits (the coordinator, with remote-change notifications on); guarded by
    /// ``lock``.
    var observer: (@Sendable (RemoteCommit) -> Void)?
    /// Whether every table has its folded-text columns (``PostgresSchema/foldedColumn(_:)``), filled: set at
    /// opening, before the store is shared, and not changed afterwards. A writable client always finds (or makes)
    /// them (opening upgrades a database made before them); a read-only client of such a database does not, and
    /// then must not let the server answer anything through them (compare in memory instead).
    var hasFoldedColumns = false
    /// Where commits are handed to ``observer``, one at a time, in commit order.
    let deliveries = DispatchQueue(label: "ObjectGraph PostgreSQL commits")

    /// The UUID whose `NOTIFY` channel the store follows and notifies: its own, until the database is replaced by a
    /// restore under another UUID (``follow(storeUUID:)``); guarded by ``channelLock``.
    private var channelUUID: String
    private let channelLock = NSLock()

    /// The `NOTIFY` channel of this store.
    var channel: String { channelLock.withLock { Self.channel(for: channelUUID) } }

    /// Follows the channel of the store whose UUID is `storeUUID` from now on (the database now holds it).
    func follow(storeUUID: String) { channelLock.withLock { channelUUID = storeUUID } }

    init(uri: String, displayName: String, model: ManagedObjectModel, isReadOnly: Bool, writer: PostgresConnection,
        identifier: String, externalThreshold: Int = PersistentStoreOptions().externalBinaryDataThreshold)
    {
        self.externalThreshold = externalThreshold
        self.uri = uri
        self.displayName = displayName
        self.model = model
        self.isReadOnly = isReadOnly
        self.writer = writer
        valueReader = PostgresValueReader(uri: uri, displayName: displayName)
        self.identifier = identifier
        channelUUID = identifier
        replicaStorage = StoreReplica(identifier: identifier, model: model)
    }

    deinit { listener?.stop() }

    /// The replica, reloaded first when a failed commit left it in doubt.
    var currentReplica: StoreReplica {
        get throws(ObjectGraphError) {
            try withLock { () throws(ObjectGraphError) in try reloadIfNeeded() }
            return replicaStorage
        }
    }

    /// Runs `body` holding ``lock``.
    func withLock<T>(_ body: () throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The rows `request` selects. The server answers when the predicate and sort order translate to PostgreSQL
    /// exactly (see `PostgresPredicateCompiler`), the rows then coming from the replica at the answer's commit;
    /// otherwise the replica answers, after catching up with commits made before the fetch.
    public func fetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot] {
        if let rows = try serverFetch(request) { return rows }
        catchUpBeforeReading()
        return try currentReplica.fetch(request)
    }

    /// The number of rows `request` selects, answered as ``fetch(_:)`` is.
    public func count(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int {
        if let count = try serverCount(request) { return count }
        catchUpBeforeReading()
        return try currentReplica.count(request)
    }

    /// The rows of `ids` from the replica. When some are missing, the replica first catches up with commits it
    /// has not applied yet (their notification may still be on its way), so that an object another client saved
    /// before this call is found, as a fetch would find it.
    public func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        let found = try currentReplica.rows(for: ids, entity: entity)
        // (Counted without a set first: this is every fault's path, and IDs asked twice are rare.)
        guard found.count < ids.count, found.count < Set(ids).count else { return found }
        catchUpBeforeReading()
        return try currentReplica.rows(for: ids, entity: entity)
    }

    public func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        try currentReplica.relatedIDs(of: objectID, entity: entity, relationshipIndex: relationshipIndex)
    }

    public func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        try currentReplica.relatedIDs(ofMany: objectIDs, entity: entity, relationshipIndex: relationshipIndex)
    }

    public func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        guard count > 0 else { return 0..<0 }
        return try withLock { () throws(ObjectGraphError) in
            try writer.ensureConnected()
            return try reserveKeys(for: entity, count: count)
        }
    }

    /// Moves the hierarchy's counter past `count` new keys and returns them (inside or outside a transaction).
    func reserveKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        let root = model.rootEntity(of: entity).name
        let reservation = Self.keyReservation(root: root, count: count)
        return try keyRange(writer.execute(reservation.sql, reservation.parameters), root: root, count: count)
    }

    /// The statement that moves the counter of the hierarchy whose root is `root` past `count` new keys, returning
    /// the last one (see ``keyRange(_:root:count:)``).
    static func keyReservation(root: String, count: Int) -> PostgresConnection.Statement {
        PostgresConnection.Statement(
            #"UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = "Z_MAX" + $2 WHERE "Z_NAME" = $1 RETURNING "Z_MAX""#,
            [root, String(count)])
    }

    /// The `count` keys a ``keyReservation(root:count:)`` that returned `rows` reserved.
    func keyRange(_ rows: PostgresConnection.Rows, root: String, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        guard let text = rows.first?[0] ?? nil, let last = Int64(text) else {
            throw .storeFailed(store: displayName, reason: "Z_PRIMARYKEY has no row for \(root)")
        }
        return (last - Int64(count) + 1)..<(last + 1)
    }

    public func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError) {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        let plist: Data
        do {
            plist = try metadata.propertyList()
        } catch {
            throw .invalidStoreOption(name: "metadata", reason: "it cannot be written as a property list (\(error))")
        }
        try withLock { () throws(ObjectGraphError) in
            try writer.ensureConnected()
            try writer.execute(#"UPDATE "Z_METADATA" SET "Z_PLIST" = $1 WHERE "Z_UUID" = $2"#,
                [PostgresValueCoding.encode(.binary(plist), as: .binary), identifier])
        }
    }

    /// The server process of the connection saves use (for tests that terminate it).
    public var writerBackendPID: Int32 { lock.withLock { writer.backendPID } }
}

@_spi(StoreImplementation)
extension PostgresStore: ReplicatedStore {
    /// The replica that answers reads (dictionary fetches included).
    public var replica: StoreReplica {
        get throws(ObjectGraphError) { try currentReplica }
    }
}

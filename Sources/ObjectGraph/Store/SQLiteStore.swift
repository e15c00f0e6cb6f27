import Foundation
import SQLiteStorage
import Synchronization

/// A store in one SQLite file, laid out as Core Data lays out its stores.
///
/// One writer connection (each save is one `BEGIN IMMEDIATE` transaction) and a small pool of reader
/// connections. The file is in WAL mode, so readers never wait for the writer: a main-queue fetch returns
/// while a background import holds its write transaction open.
final class SQLiteStore: StoreBackend, @unchecked Sendable {
    let path: String
    let model: ManagedObjectModel
    private(set) var identifier: String = ""
    /// The namespaces of the IDs this store hands out (set with ``identifier``).
    private(set) var idNamespaces: StoreIDNamespaces
    /// What `Z_METADATA` said when the store was opened or created (later changes live in ``PersistentStore``).
    var metadata: StoreMetadata?
    /// Whether the file was written by Core Data (or anything but ObjectGraph; see ``StoreMetadata/writer``): it
    /// is then kept as that framework left it — journal mode, indexes, triggers, metadata keys — so that Core
    /// Data can open it again.
    private(set) var isForeignStore = false
    /// How the store was found to fit the model when it was opened.
    var compatibility: StoreCompatibility = .matchingVersionHashes
    /// Whether every connection is opened read-only (``PersistentStoreOptions/isReadOnly``).
    let isReadOnly: Bool
    /// The checked extra pragmas every connection runs (``PersistentStoreOptions/sqlitePragmas``).
    private let pragmas: [(name: String, value: String)]
    /// Every entity's table layout, by entity name.
    private(set) var layouts: [String: TableLayout] = [:]
    private var layoutsByNumber: [Int: TableLayout] = [:]
    /// Join tables of many-to-many relationships, keyed by `"Entity.relationship"` of the declaring entity.
    private(set) var joinTables: [String: JoinTable] = [:]
    /// The text search indexes the file has as the model declares them, by root table name (see
    /// ``TextSearchIndex``); predicates on their attributes read them.
    private(set) var textIndexes: [String: TextSearchIndex] = [:]
    private let writer: Locked<SQLiteConnection>
    /// Where values of external-storage attributes go when they are large (`.<name>_SUPPORT/_EXTERNAL_DATA`).
    let externalStorage: ExternalBinaryStorage
    /// Whether any entity has an attribute that allows external storage.
    let hasExternalBinaryAttributes: Bool
    /// Files written by saves whose commit failed, removed once a later write commits (see
    /// ``withExternalDataChanges(_:)``).
    let filesOfFailedCommits = Locked<[URL]>([])
    private let readers = Locked<[SQLiteConnection]>([])
    private static let maximumIdleReaders = 4
    /// How many read operations (each one query, or one chunked key lookup) the store has run; tests use it to
    /// check that faults and prefetching cost what they promise.
    let readCount = Atomic<Int>(0)
    /// Whether saves and batch requests record persistent history (the option, or history tables in the file).
    private(set) var recordsHistory = false
    /// How many tombstone columns `ACHANGE` has: a store Core Data wrote keeps its table as it is, so a deletion
    /// keeps only as many preserved values as there are columns.
    var historyTombstoneColumns = 0
    /// Numbers of history transactions this store object committed and its change watcher has not seen yet, so
    /// that the watcher tells this coordinator's own commits from other writers'.
    let ownTransactions = Locked<Set<Int64>>([])
    /// The watcher of other writers' commits, when ``PersistentStoreOptions/remoteChangeNotifications`` is on.
    let changeWatcher = Locked<StoreChangeWatcher?>(nil)
    /// The options the store was opened with.
    let options: PersistentStoreOptions

    /// Opens (creating when new, unless read-only) the store at `path` for `model`.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for files that are not stores (or a
    ///   read-only store that does not exist), ``ObjectGraphError/incompatibleStore(path:reason:)`` when the
    ///   tables do not fit the model, ``ObjectGraphError/invalidStoreOption(name:reason:)`` for a bad pragma,
    ///   and ``ObjectGraphError/sqlite(_:)`` for unreadable or corrupt files.
    init(path: String, model: ManagedObjectModel, options: PersistentStoreOptions = PersistentStoreOptions())
        throws(ObjectGraphError)
    {
        self.path = path
        self.options = options
        idNamespaces = StoreIDNamespaces()
        isReadOnly = options.isReadOnly
        pragmas = try options.validatedPragmas()
        guard options.externalBinaryDataThreshold >= 0 else {
            throw .invalidStoreOption(name: "externalBinaryDataThreshold",
                reason: "\(options.externalBinaryDataThreshold) is negative; give a size in bytes, 0 or more")
        }
        externalStorage = ExternalBinaryStorage(storeURL: StoreFiles.resolved(URL(fileURLWithPath: path)),
            threshold: options.externalBinaryDataThreshold)
        hasExternalBinaryAttributes = model.entities.contains { !$0.externalBinaryAttributeIndexes.isEmpty }
        if isReadOnly && !FileManager.default.fileExists(atPath: path) {
            throw .notAnObjectGraphStore(path: path, reason: "it does not exist (a read-only store is never created)")
        }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, mode: isReadOnly ? .readOnly : .readWrite)
        } catch {
            throw Self.openError(error, path: path)
        }
        writer = Locked(connection)
        do {
            // A migrated store keeps the entity numbers its rows carry (Z_PRIMARYKEY), which may not be the
            // ones a new store of this model would get.
            self.model = try Self.numberedAsStored(model, connection)
            isForeignStore = try Self.isForeign(connection, path: path)
        } catch {
            throw Self.openError(error, path: path)
        }
        do {
            try Self.configure(connection)
            // A read-only connection cannot change the journal mode; the file keeps the one it was written with.
            // So does a store Core Data wrote: its readers and writers then follow its journal mode (in DELETE
            // mode a reader waits for a committing writer, within the busy timeout).
            if !isReadOnly && !isForeignStore { try connection.setJournalModeWAL() }
            try applyPragmas(connection)
        } catch {
            throw Self.openError(error, path: path)
        }
        // Derived attributes are computed by triggers in every store: Core Data's own in the stores it wrote,
        // ours (``DerivedAttributeTriggers``) in ObjectGraph's. Updates never write their columns.
        layouts = TableLayout.layouts(for: self.model, externalStorage: externalStorage,
            derivedColumnsKeptByTriggers: true)
        joinTables = JoinTable.tables(for: self.model)
        layoutsByNumber = Dictionary(layouts.values.map { ($0.entityNumber, $0) }) { first, _ in first }
        identifier = try prepareSchema(connection)
        do {
            textIndexes = Dictionary(try TextSearchIndex.available(connection,
                expected: TextSearchIndex.expected(model: self.model, layouts: layouts)).map { ($0.table, $0) }
            ) { first, _ in first }
        } catch {
            throw Self.openError(error, path: path)
        }
        idNamespaces = StoreIDNamespaces(model: self.model, storeIdentifier: identifier)
        // Files of another framework's external storage are not ours to judge.
        if !isReadOnly && !isForeignStore { removeOrphanedExternalFiles(connection) }
        recordsHistory = try prepareHistory(connection, wanted: options.persistentHistoryTracking)
        if metadata == nil {
            metadata = StoreMetadata(storeType: "SQLite", storeUUID: identifier,
                entityVersionHashes: model.entityVersionHashes, versionIdentifiers: model.versionIdentifiers.sorted(),
                modelVersionName: model.versionName)
        }
    }

    /// The entity numbers `Z_PRIMARYKEY` records, by entity name; nil for a new file (no table yet).
    static func storedEntityNumbers(_ connection: SQLiteConnection) throws(SQLiteError) -> [String: Int]? {
        guard try connection.tableExists("Z_PRIMARYKEY") else { return nil }
        var numbers: [String: Int] = [:]
        for row in try connection.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if case .integer(let number) = row[0], case .text(let name) = row[1] { numbers[name] = Int(number) }
        }
        return numbers
    }

    /// Whether the file on `connection` is a store ObjectGraph did not write: its `Z_METADATA` names another
    /// framework version, or cannot be read (then nothing is changed before opening it fails). A new file is not.
    static func isForeign(_ connection: SQLiteConnection, path: String) throws(SQLiteError) -> Bool {
        guard try connection.tableExists("Z_METADATA") else { return false }
        return (try? readMetadata(connection, path: path))?.writer != .objectGraph
    }

    /// Reads a store file's metadata without checking it against any model.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the file has no `Z_METADATA`.
    static func readMetadata(path: String) throws(ObjectGraphError) -> StoreMetadata {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, mode: .readOnly)
        } catch {
            throw openError(error, path: path)
        }
        defer { connection.close() }
        return try readMetadata(connection, path: path)
    }

    /// Reads the metadata of the store open on `connection`.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` when the file has no `Z_METADATA`.
    static func readMetadata(_ connection: SQLiteConnection, path: String) throws(ObjectGraphError) -> StoreMetadata {
        do {
            guard try connection.tableExists("Z_METADATA"),
                case .text(let uuid)? = try connection.scalar("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1")
            else { throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "it has no Z_METADATA row") }
            guard case .blob(let bytes)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"),
                let metadata = StoreMetadata(propertyList: Data(bytes), storeUUID: uuid)
            else { throw ObjectGraphError.notAnObjectGraphStore(path: path, reason: "its Z_METADATA plist is unreadable") }
            return metadata
        } catch let error as ObjectGraphError {
            throw error
        } catch let error as SQLiteError {
            throw openError(error, path: path)
        } catch {
            throw .notAnObjectGraphStore(path: path, reason: "\(error)")
        }
    }

    /// A "file is not a database" from SQLite is a not-a-store error; anything else stays an SQLite error.
    private static func openError(_ error: SQLiteError, path: String) -> ObjectGraphError {
        if error.code == SQLiteError.notADatabase {
            return .notAnObjectGraphStore(path: path, reason: "the file is not an SQLite database")
        }
        return .sqlite(error)
    }

    /// Settings every connection gets: a busy timeout, full durability, the SQL functions that predicates and
    /// sort criteria compile to, and the ones Core Data's triggers call (``CoreDataTriggerFunctions``).
    private static func configure(_ connection: SQLiteConnection) throws(SQLiteError) {
        connection.setBusyTimeout(milliseconds: 10_000)
        try connection.execute("PRAGMA synchronous = FULL")
        try PredicateSQLFunctions.register(on: connection)
        try CoreDataTriggerFunctions.register(on: connection)
    }

    /// Runs the description's extra pragmas (checked to be a name and a plain value) on `connection`.
    private func applyPragmas(_ connection: SQLiteConnection) throws(SQLiteError) {
        for pragma in pragmas { _ = try connection.scalar("PRAGMA \(pragma.name) = \(pragma.value)") }
    }

    deinit {
        changeWatcher.withLock { $0?.stop() }
        writer.withLock { $0.close() }
        readers.withLock { pool in
            for connection in pool { connection.close() }
            pool.removeAll()
        }
    }

    /// Closes the writer and every idle reader, for a store that leaves its coordinator for good (destroyed or
    /// migrated elsewhere): a save that still reaches this object then fails, and can be retried through the
    /// coordinator, instead of writing into a file that is no longer the store. Readers in use at the time are
    /// closed when the store is released.
    func closeConnections() {
        changeWatcher.withLock { watcher in
            watcher?.stop()
            watcher = nil
        }
        writer.withLock { $0.close() }
        readers.withLock { pool in
            for connection in pool { connection.close() }
            pool.removeAll()
        }
    }

    /// The table layout of `entity`.
    func layout(of entity: EntityDescription) throws(ObjectGraphError) -> TableLayout {
        guard let layout = layouts[entity.name] else { throw .unknownEntity(entity.name) }
        return layout
    }

    /// The layout of the entity whose `Z_ENT` is `number`, if the model has one.
    func layout(forEntityNumber number: Int) -> TableLayout? { layoutsByNumber[number] }

    /// Runs `body` on the writer connection, one caller at a time.
    func withWriter<T: Sendable>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        let result: Result<T, ObjectGraphError> = writer.withLock { connection in
            do throws(ObjectGraphError) { return .success(try body(connection)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `body` on an idle reader connection (opening one if none is idle); readers run in parallel.
    func withReader<T>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        readCount.add(1, ordering: .relaxed)
        var connection = readers.withLock { $0.popLast() }
        if connection == nil {
            do {
                let opened = try SQLiteConnection(path: path, mode: isReadOnly ? .readOnly : .readWrite)
                try Self.configure(opened)
                try applyPragmas(opened)
                connection = opened
            } catch {
                throw Self.openError(error, path: path)
            }
        }
        guard let reader = connection else { throw .noPersistentStore }
        defer {
            readers.withLock { pool in
                if pool.count < Self.maximumIdleReaders { pool.append(reader) } else { reader.close() }
            }
        }
        return try body(reader)
    }
}

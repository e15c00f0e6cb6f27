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
    private var layouts: [String: TableLayout] = [:]
    private let writer: Mutex<SQLiteConnection>
    private let readers = Mutex<[SQLiteConnection]>([])
    private static let maximumIdleReaders = 4

    /// Opens (creating when new) the store at `path` for `model`.
    ///
    /// - Throws: ``ObjectGraphError/notAnObjectGraphStore(path:reason:)`` for files that are not stores,
    ///   ``ObjectGraphError/incompatibleStore(path:reason:)`` when the tables do not fit the model, and
    ///   ``ObjectGraphError/sqlite(_:)`` for unreadable or corrupt files.
    init(path: String, model: ManagedObjectModel) throws(ObjectGraphError) {
        self.path = path
        self.model = model
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, mode: .readWrite)
        } catch {
            throw Self.openError(error, path: path)
        }
        writer = Mutex(connection)
        do {
            try Self.configure(connection)
            try connection.setJournalModeWAL()
        } catch {
            throw Self.openError(error, path: path)
        }
        layouts = Dictionary(uniqueKeysWithValues: model.entities.map {
            ($0.name, TableLayout(entity: $0, entityNumber: model.entityNumber(of: $0)))
        })
        identifier = try prepareSchema(connection)
    }

    /// A "file is not a database" from SQLite is a not-a-store error; anything else stays an SQLite error.
    private static func openError(_ error: SQLiteError, path: String) -> ObjectGraphError {
        if error.code == SQLiteError.notADatabase {
            return .notAnObjectGraphStore(path: path, reason: "the file is not an SQLite database")
        }
        return .sqlite(error)
    }

    /// Settings every connection gets: a busy timeout, full durability, and the SQL functions that
    /// predicates and sort criteria compile to.
    private static func configure(_ connection: SQLiteConnection) throws(SQLiteError) {
        connection.setBusyTimeout(milliseconds: 10_000)
        try connection.execute("PRAGMA synchronous = FULL")
        try PredicateSQLFunctions.register(on: connection)
    }

    deinit {
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

    /// Runs `body` on the writer connection, one caller at a time.
    func withWriter<T: Sendable>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        let result: Result<T, ObjectGraphError> = writer.withLock { connection in
            do throws(ObjectGraphError) { return .success(try body(connection)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `body` on an idle reader connection (opening one if none is idle); readers run in parallel.
    func withReader<T>(_ body: (SQLiteConnection) throws(ObjectGraphError) -> T) throws(ObjectGraphError) -> T {
        var connection = readers.withLock { $0.popLast() }
        if connection == nil {
            do {
                let opened = try SQLiteConnection(path: path, mode: .readWrite)
                try Self.configure(opened)
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

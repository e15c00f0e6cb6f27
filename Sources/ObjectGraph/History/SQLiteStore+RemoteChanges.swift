import Foundation
import SQLiteStorage

/// What a store's watcher found another writer committed.
struct RemoteStoreChange: Sendable {
    /// Other writers' transactions, oldest first (empty when the store records no history).
    let transactions: [PersistentHistoryTransaction]
    /// The newest transaction in the history now (own ones included); nil without history.
    let newestTransactionNumber: Int64?
    /// Whether the store records history, so ``transactions`` says what changed; otherwise only *that* the file
    /// changed is known.
    let historyKnown: Bool
    /// Set when another writer replaced the store's contents (a restore: the history was rewound) or migrated
    /// it (its model version hashes changed): what changed is not known object by object.
    var replacement: Replacement? = nil

    /// How another writer changed the whole store.
    enum Replacement: Sendable, Equatable {
        /// The contents were replaced: the history the watcher last saw is gone or differs.
        case contents
        /// The store was migrated to the model version whose metadata this is.
        case migration(StoreMetadata)
    }
}

/// The watcher connection's state. `@unchecked Sendable`: created before the watcher starts, then used only
/// on the watcher's serial queue (the check closure is the only code that touches it).
private final class RemoteChangeObserver: @unchecked Sendable {
    let connection: SQLiteConnection
    var dataVersion: Int64?
    var lastTransaction: Int64
    /// When the transaction ``lastTransaction`` was committed (its `ZTIMESTAMP`): a restore that rewinds the
    /// history and then hands out the same number again is told apart by it.
    var lastTimestamp: Double?
    /// `Z_METADATA`'s property list as last read, and the entity version hashes it held when watching began.
    var metadataBytes: [UInt8]?
    var entityVersionHashes: [String: Data]?

    init(connection: SQLiteConnection, lastTransaction: Int64) {
        self.connection = connection
        self.lastTransaction = lastTransaction
    }

    deinit { connection.close() }
}

extension SQLiteStore {
    /// The interval of the fallback poll when inotify sends nothing (network file systems).
    static let remoteChangePollInterval: TimeInterval = 1

    /// Starts watching the file for other writers' commits (another coordinator of this process or another
    /// process), calling `deliver` on the watcher's queue for each batch of them, in commit order. This store's
    /// own commits are recognised by their history transaction numbers and not delivered.
    ///
    /// - Throws: when the watcher's connection cannot be opened.
    func startWatchingForRemoteChanges(deliver: @escaping @Sendable (RemoteStoreChange) -> Void) throws(ObjectGraphError) {
        let observer: RemoteChangeObserver
        do {
            let connection = try SQLiteConnection(path: path, mode: .readOnly)
            connection.setBusyTimeout(milliseconds: 10_000)
            try PredicateSQLFunctions.register(on: connection)
            observer = RemoteChangeObserver(connection: connection, lastTransaction: try newestTransactionNumber(connection))
            if case .integer(let version) = try connection.pragma("data_version") { observer.dataVersion = version }
            observer.lastTimestamp = try Self.timestamp(ofTransaction: observer.lastTransaction, connection)
            if case .blob(let bytes)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") {
                observer.metadataBytes = bytes
                observer.entityVersionHashes = StoreMetadata(propertyList: Data(bytes), storeUUID: identifier)?
                    .entityVersionHashes
            }
        } catch {
            throw .sqlite(error)
        }
        let watcher = StoreChangeWatcher(path: path, pollInterval: Self.remoteChangePollInterval) { [weak self] in
            guard let self else { return false }
            return self.checkForRemoteChanges(observer, deliver: deliver)
        }
        changeWatcher.withLock { old in
            old?.stop()
            old = watcher
        }
    }

    /// One check: has the file changed since the last one, and if so, what did other writers commit?
    private func checkForRemoteChanges(
        _ observer: RemoteChangeObserver, deliver: @Sendable (RemoteStoreChange) -> Void
    ) -> Bool {
        let connection = observer.connection
        guard case .integer(let version)? = try? connection.pragma("data_version") else { return false }
        guard version != observer.dataVersion else { return false }
        do {
            if let migrated = try migratedMetadata(observer) {
                observer.dataVersion = version
                observer.lastTransaction = try newestTransactionNumber(connection)
                observer.lastTimestamp = try Self.timestamp(ofTransaction: observer.lastTransaction, connection)
                deliver(RemoteStoreChange(transactions: [], newestTransactionNumber: nil, historyKnown: recordsHistory,
                    replacement: .migration(migrated)))
                return true
            }
            guard recordsHistory else {
                observer.dataVersion = version
                deliver(RemoteStoreChange(transactions: [], newestTransactionNumber: nil, historyKnown: false))
                return true
            }
            if try historyWasRewound(observer) {
                // A restore put older contents (and their older history) in place: nothing the history says is
                // known relative to what this process last saw.
                let newest = try newestTransactionNumber(connection)
                observer.dataVersion = version
                observer.lastTransaction = newest
                observer.lastTimestamp = try Self.timestamp(ofTransaction: newest, connection)
                ownTransactions.withLock { $0.removeAll() }
                deliver(RemoteStoreChange(transactions: [], newestTransactionNumber: newest, historyKnown: true,
                    replacement: .contents))
                return true
            }
            // Which new transactions are there, and which of them are this store's own? (Cheap: no changes read.)
            let numbers = try connection.rows("SELECT Z_PK FROM ATRANSACTION WHERE Z_PK > ? ORDER BY Z_PK",
                [.integer(observer.lastTransaction)]).compactMap { row -> Int64? in
                    if case .integer(let number) = row[0] { return number }
                    return nil
                }
            // (A checkpoint or another connection's no-op also moves data_version.)
            guard let newest = numbers.last else {
                observer.dataVersion = version
                return false
            }
            let foreign = ownTransactions.withLock { own in numbers.filter { own.remove($0) == nil } }
            var transactions: [PersistentHistoryTransaction] = []
            if !foreign.isEmpty {
                let wanted = Set(foreign)
                transactions = try historyTransactions(after: observer.lastTransaction, checkingPurges: false, connection)
                    .filter { wanted.contains($0.transactionNumber) && $0.transactionNumber <= newest }
            }
            observer.lastTransaction = newest
            observer.lastTimestamp = try Self.timestamp(ofTransaction: newest, connection)
            observer.dataVersion = version
            if !transactions.isEmpty {
                deliver(RemoteStoreChange(transactions: transactions, newestTransactionNumber: newest, historyKnown: true))
            }
            return true
        } catch {
            // A read that failed (a lock held too long, an I/O error) is tried again at the next wake-up or poll:
            // data_version stays unrecorded, so nothing is skipped.
            return false
        }
    }

    /// The metadata of the store when another writer changed its model version hashes since watching began (a
    /// migration), else nil. Reads `Z_METADATA` only when its bytes changed.
    private func migratedMetadata(_ observer: RemoteChangeObserver) throws(SQLiteError) -> StoreMetadata? {
        guard case .blob(let bytes)? = try observer.connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"),
            bytes != observer.metadataBytes
        else { return nil }
        observer.metadataBytes = bytes
        guard let metadata = StoreMetadata(propertyList: Data(bytes), storeUUID: identifier),
            let hashes = observer.entityVersionHashes, metadata.entityVersionHashes != hashes
        else { return nil }
        observer.entityVersionHashes = metadata.entityVersionHashes
        return metadata
    }

    /// Whether the history no longer holds the transaction the watcher saw last as it was: transaction numbers
    /// went back (a restore of an older copy), or the same number now names a transaction committed at another
    /// time. A purge that removed it leaves the numbers where they were and is not a rewind.
    private func historyWasRewound(_ observer: RemoteChangeObserver) throws(SQLiteError) -> Bool {
        guard observer.lastTransaction > 0 else { return false }
        let connection = observer.connection
        guard try SQLiteHistoryTables.exist(connection) else { return true }
        let allocated: Int64
        if case .integer(let maximum)? = try connection.scalar(
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(SQLiteHistoryTables.transactionEntityNumber)])
        {
            allocated = maximum
        } else {
            allocated = try newestTransactionNumber(connection)
        }
        if allocated < observer.lastTransaction { return true }
        guard let seen = observer.lastTimestamp,
            let now = try Self.timestamp(ofTransaction: observer.lastTransaction, connection)
        else { return false }
        return now != seen
    }

    /// When transaction `number` was committed, if the history still holds it.
    static func timestamp(ofTransaction number: Int64, _ connection: SQLiteConnection) throws(SQLiteError) -> Double? {
        guard number > 0, try SQLiteHistoryTables.exist(connection) else { return nil }
        switch try connection.scalar("SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = ?", [.integer(number)]) {
        case .real(let value)?: return value
        case .integer(let value)?: return Double(value)
        default: return nil
        }
    }
}

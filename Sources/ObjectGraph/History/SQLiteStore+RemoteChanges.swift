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
}

/// The watcher connection's state. `@unchecked Sendable`: created before the watcher starts, then used only
/// on the watcher's serial queue (the check closure is the only code that touches it).
private final class RemoteChangeObserver: @unchecked Sendable {
    let connection: SQLiteConnection
    var dataVersion: Int64?
    var lastTransaction: Int64

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
        guard recordsHistory else {
            observer.dataVersion = version
            deliver(RemoteStoreChange(transactions: [], newestTransactionNumber: nil, historyKnown: false))
            return true
        }
        do {
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
}

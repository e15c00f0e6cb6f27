import Foundation

/// A store that keeps a persistent history of its transactions: an optional capability of an
/// ``IncrementalStore``, behind ``PersistentStoreCoordinator/fetchHistory(after:)-(HistoryToken?)``,
/// ``PersistentStoreCoordinator/currentPersistentHistoryToken(fromStores:)`` and
/// ``PersistentStoreCoordinator/deleteHistory(before:)-(HistoryToken)``. Transaction numbers grow with every
/// transaction and are never reused, so a ``HistoryToken`` (the number, per store) says what a reader has seen.
public protocol PersistentHistoryStore: IncrementalStore {
    /// Whether the store records history now (a store may offer the capability with history off).
    var recordsHistory: Bool { get }
    /// The transactions numbered above `transactionNumber` (0: every one kept), oldest first, with their changes.
    /// With `checkingPurges`, history purged after `transactionNumber` is
    /// ``ObjectGraphError/historyTokenExpired(store:transactionNumber:oldestAvailable:)``.
    func historyTransactions(after transactionNumber: Int64, checkingPurges: Bool) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    /// The transactions committed after `date`, oldest first.
    func historyTransactions(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction]
    /// The number of the newest transaction (0 when there is none).
    func newestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64
    /// Deletes the history up to and including `transactionNumber`, or of transactions committed before `date`,
    /// and returns how many transactions were deleted.
    func deleteHistory(through transactionNumber: Int64?, before date: Date?) throws(ObjectGraphError) -> Int
}

extension SQLiteStore: PersistentHistoryStore {
    func historyTransactions(after transactionNumber: Int64, checkingPurges: Bool) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    {
        try withReader { connection throws(ObjectGraphError) in
            try sqlite { try historyTransactions(after: transactionNumber, checkingPurges: checkingPurges, connection) }
        }
    }

    func historyTransactions(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        try withReader { connection throws(ObjectGraphError) in
            try sqlite { try historyTransactions(after: 0, date: date, checkingPurges: false, connection) }
        }
    }

    func newestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        try withReader { connection throws(ObjectGraphError) in try sqlite { try newestTransactionNumber(connection) } }
    }
}


import Foundation

/// One committed transaction of a store's persistent history: a context's save or a batch request, as Core
/// Data's `NSPersistentHistoryTransaction` records it.
public struct PersistentHistoryTransaction: Sendable, Identifiable, CustomStringConvertible {
    /// The transaction's number in its store (`ATRANSACTION.Z_PK`): grows with every commit, never reused.
    public let transactionNumber: Int64
    /// The store that committed it.
    public let storeIdentifier: String
    /// When it was committed.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor`` at the time, if it had one
    /// (`objectgraph` records `objectgraph`, `people` records `people`).
    public let author: String?
    /// The saving context's ``ManagedObjectContext/name``, if it had one.
    public let contextName: String?
    /// The process that committed it, as its process identifier in decimal.
    public let processID: String?
    /// The program that committed it (its executable's name: Linux programs have no bundle identifier).
    public let bundleID: String?
    /// The changes, in the order they were recorded.
    public let changes: [PersistentHistoryChange]

    /// The transaction's number, which identifies it within its store.
    public var id: Int64 { transactionNumber }

    /// A transaction as a store read it back.
    public init(
        transactionNumber: Int64, storeIdentifier: String, timestamp: Date, author: String?, contextName: String?,
        processID: String?, bundleID: String? = nil, changes: [PersistentHistoryChange]
    ) {
        self.transactionNumber = transactionNumber
        self.storeIdentifier = storeIdentifier
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.processID = processID
        self.bundleID = bundleID
        self.changes = changes
    }


    /// A token covering this transaction and everything before it in its store.
    public var token: HistoryToken { HistoryToken(storeIdentifier: storeIdentifier, transactionNumber: transactionNumber) }

    /// The changed object IDs, as ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` takes them:
    /// Core Data's `objectIDNotification()`.
    public func objectIDNotification() -> RemoteContextSave {
        RemoteContextSave(
            inserted: changes.filter { $0.changeType == .insert }.map(\.changedObjectID),
            updated: changes.filter { $0.changeType == .update }.map(\.changedObjectID),
            deleted: changes.filter { $0.changeType == .delete }.map(\.changedObjectID))
    }

    /// How many changes of each kind the transaction holds, per entity name.
    public var changeCounts: [String: [PersistentHistoryChange.ChangeType: Int]] {
        var counts: [String: [PersistentHistoryChange.ChangeType: Int]] = [:]
        for change in changes { counts[change.changedObjectID.entityName, default: [:]][change.changeType, default: 0] += 1 }
        return counts
    }

    public var description: String {
        let kinds = Dictionary(grouping: changes, by: \.changeType).mapValues(\.count)
        return "<PersistentHistoryTransaction #\(transactionNumber) \(author ?? "-"): +\(kinds[.insert] ?? 0) "
            + "~\(kinds[.update] ?? 0) -\(kinds[.delete] ?? 0)>"
    }
}

/// One object's change within a ``PersistentHistoryTransaction``: Core Data's `NSPersistentHistoryChange`.
public struct PersistentHistoryChange: Sendable, Identifiable {
    /// What happened to the object (Core Data's `NSPersistentHistoryChangeType` numbers).
    public enum ChangeType: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The object was inserted.
        case insert = 0
        /// Some of its properties changed (``PersistentHistoryChange/updatedProperties``).
        case update = 1
        /// The object was deleted (its ``PersistentHistoryChange/tombstone`` keeps chosen values).
        case delete = 2

        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The change's number in its store (`ACHANGE.Z_PK`).
    public let changeID: Int64
    /// The object that changed (its concrete entity).
    public let changedObjectID: ManagedObjectID
    /// Insert, update or delete.
    public let changeType: ChangeType
    /// For updates, the names of the attributes and relationships that changed; nil when not known (a batch
    /// update records the attributes it set) or for inserts and deletes.
    public let updatedProperties: Set<String>?
    /// For deletes, the values at deletion of the attributes marked to be preserved
    /// (``AttributeDescription/preservesValueInHistoryOnDeletion``); nil otherwise.
    public let tombstone: [String: AttributeValue]?

    /// The change's number, which identifies it within its store.
    public var id: Int64 { changeID }

    /// A change of one object in a transaction.
    public init(
        changeID: Int64, changedObjectID: ManagedObjectID, changeType: ChangeType, updatedProperties: Set<String>? = nil,
        tombstone: [String: AttributeValue]? = nil
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }

}

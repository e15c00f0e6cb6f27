import Foundation

/// One committed transaction of one store, as the store side reports it: every save of a context, every batch
/// request and migration, and — noticed through the persistent history — every commit of another coordinator
/// or another process. Contexts that merge automatically, the coordinator's row cache and fetched-results
/// controllers follow these events; nothing else tells them that a store changed.
///
/// Observe them with ``PersistentStoreCoordinator/addCommitObserver(_:)``. Events of one store arrive in commit
/// order.
public struct StoreCommitEvent: Sendable, CustomStringConvertible {
    /// Where the committed transaction came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A context or batch request of this coordinator.
        case thisCoordinator
        /// Another coordinator of this process, on the same store file.
        case otherCoordinator
        /// Another process (identified by its process ID, when the history recorded one).
        case otherProcess(processID: String?)

        /// Whether the change came from outside this coordinator.
        public var isRemote: Bool { self != .thisCoordinator }

        public var description: String {
            switch self {
            case .thisCoordinator: "this coordinator"
            case .otherCoordinator: "another coordinator of this process"
            case .otherProcess(let pid): "another process" + (pid.map { " (pid \($0))" } ?? "")
            }
        }
    }

    /// What kind of transaction it was.
    public enum Kind: Sendable, Hashable {
        /// A context's save.
        case save
        /// A ``BatchInsertRequest``, ``BatchUpdateRequest`` or ``BatchDeleteRequest``.
        case batchRequest
        /// A store migration (the whole store may have changed). Another process's migration of a store this
        /// coordinator holds is reported as one too, with ``StoreCommitEvent/invalidatesAllObjects``: the
        /// coordinator's model may no longer match the store (see
        /// ``PersistentStoreCoordinator/storeMigratedElsewhere(_:)``).
        case migration
        /// Another writer's transaction, read back from the persistent history.
        case history
        /// Another writer replaced or rewrote the store's contents in a way the history does not tell object by
        /// object: a restore from a backup (``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``,
        /// `objectgraph backup --force`), history that was rewound, or a commit to a store that records no
        /// history. Any object may have changed: see ``StoreCommitEvent/invalidatesAllObjects``.
        case contentsReplaced
    }

    /// The store that committed.
    public let storeIdentifier: String
    /// Who committed it.
    public let origin: Origin
    /// What kind of transaction it was.
    public let kind: Kind
    /// The changed IDs, as lists (made into the public sets only when asked for: a save of 1,000 objects that
    /// nobody merges should not hash them).
    let changes: CommitChanges

    /// The objects it inserted.
    public var insertedObjectIDs: Set<ManagedObjectID> { changes.insertedSet }
    /// The objects it updated, each with the names of the attributes and relationships that changed (empty when
    /// not known).
    public var updatedObjectIDs: [ManagedObjectID: Set<String>] { changes.updatedMap }
    /// The objects it deleted.
    public var deletedObjectIDs: Set<ManagedObjectID> { changes.deletedSet }
    /// The transaction author (``ManagedObjectContext/transactionAuthor``), when known.
    public let author: String?
    /// The saving context's name, when known.
    public let contextName: String?
    /// The history token of this transaction, when the store records persistent history.
    public let historyToken: HistoryToken?
    /// The rows as committed, for a save of this coordinator (inserted first, then updated): merging such an
    /// event needs no store read. Empty for events whose values must be read from the store.
    let rows: [RowSnapshot]
    /// How many of ``rows`` are inserted objects'.
    let insertedRowCount: Int
    /// The permanent IDs the save gave objects that had temporary ones.
    let permanentIDs: [ManagedObjectID: ManagedObjectID]
    /// The saving context, so that it does not merge its own save; nil for anything else.
    let sourceContext: ObjectIdentifier?

    init(
        storeIdentifier: String, origin: Origin, kind: Kind, inserted: Set<ManagedObjectID>,
        updated: [ManagedObjectID: Set<String>], deleted: Set<ManagedObjectID>, author: String? = nil,
        contextName: String? = nil, historyToken: HistoryToken? = nil, rows: [RowSnapshot] = [],
        insertedRowCount: Int = 0, permanentIDs: [ManagedObjectID: ManagedObjectID] = [:],
        sourceContext: ObjectIdentifier? = nil
    ) {
        self.init(storeIdentifier: storeIdentifier, origin: origin, kind: kind,
            changes: CommitChanges(inserted: Array(inserted), updated: updated.map { ($0.key, $0.value) },
                deleted: Array(deleted)),
            author: author, contextName: contextName, historyToken: historyToken, rows: rows,
            insertedRowCount: insertedRowCount, permanentIDs: permanentIDs, sourceContext: sourceContext)
    }

    /// An event whose changed IDs are `changes` (each object once in each list, and in one list only).
    init(
        storeIdentifier: String, origin: Origin, kind: Kind, changes: CommitChanges, author: String? = nil,
        contextName: String? = nil, historyToken: HistoryToken? = nil, rows: [RowSnapshot] = [],
        insertedRowCount: Int = 0, permanentIDs: [ManagedObjectID: ManagedObjectID] = [:],
        sourceContext: ObjectIdentifier? = nil
    ) {
        self.storeIdentifier = storeIdentifier
        self.origin = origin
        self.kind = kind
        self.changes = changes
        self.author = author
        self.contextName = contextName
        self.historyToken = historyToken
        self.rows = rows
        self.insertedRowCount = insertedRowCount
        self.permanentIDs = permanentIDs
        self.sourceContext = sourceContext
    }

    /// True when the transaction changed no object that it names (an event that invalidates all objects names
    /// none).
    public var isEmpty: Bool { changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty }

    /// Whether any object of the store may have changed without the event naming it: another writer's
    /// migration or replacement of the store (``Kind/contentsReplaced``). Contexts that merge such an event
    /// refresh every registered object (keeping their unsaved changes) and post an objects-did-change with
    /// ``ObjectsDidChange/invalidatedAllObjects``, so fetched-results controllers fetch again — Core Data's
    /// `NSInvalidatedAllObjectsKey`.
    public var invalidatesAllObjects: Bool {
        kind == .contentsReplaced || (kind == .migration && origin.isRemote)
    }

    /// Whether merging needs the rows read from the store (the event does not carry them).
    var needsRowsFromStore: Bool { rows.count != changes.inserted.count + changes.updated.count }

    public var description: String {
        "<StoreCommitEvent \(kind) from \(origin): +\(changes.inserted.count) ~\(changes.updated.count) "
            + "-\(changes.deleted.count)\(historyToken.map { " \($0)" } ?? "")>"
    }
}

/// A commit's changed object IDs as lists, with the sets (and the map of updated objects to their changed keys)
/// made once, when first asked for.
final class CommitChanges: Sendable {
    let inserted: [ManagedObjectID]
    let updated: [(id: ManagedObjectID, keys: Set<String>)]
    let deleted: [ManagedObjectID]
    private let insertedMemo: Memo<Set<ManagedObjectID>>
    private let updatedMemo: Memo<[ManagedObjectID: Set<String>]>
    private let deletedMemo: Memo<Set<ManagedObjectID>>

    init(inserted: [ManagedObjectID], updated: [(id: ManagedObjectID, keys: Set<String>)], deleted: [ManagedObjectID]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        insertedMemo = Memo { Set(inserted) }
        updatedMemo = Memo { Dictionary(updated.map { ($0.id, $0.keys) }) { first, second in first.union(second) } }
        deletedMemo = Memo { Set(deleted) }
    }

    var insertedSet: Set<ManagedObjectID> { insertedMemo.value }
    var updatedMap: [ManagedObjectID: Set<String>] { updatedMemo.value }
    var deletedSet: Set<ManagedObjectID> { deletedMemo.value }
}

/// A value made by `make` the first time it is asked for, then kept; safe from any thread.
final class Memo<Value: Sendable>: Sendable {
    private let made = Locked<Value?>(nil)
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    var value: Value {
        made.withLock { made in
            if let value = made { return value }
            let value = make()
            made = value
            return value
        }
    }
}

extension Notification.Name {
    /// Posted by a coordinator when a store it holds was changed by another coordinator or another process (Core
    /// Data's `NSPersistentStoreRemoteChange`), on a private queue; `object` is the coordinator. The
    /// `userInfo` holds the store's URL (``StoreCommitEvent/storeURLKey``), its identifier
    /// (``StoreCommitEvent/storeUUIDKey``) and, with persistent history on, the newest
    /// ``HistoryToken`` (``StoreCommitEvent/historyTokenKey``).
    public static let persistentStoreRemoteChange = Notification.Name("ObjectGraph.PersistentStoreRemoteChange")
}

extension StoreCommitEvent {
    /// `userInfo` key of a remote-change notification: the store's file URL.
    public static let storeURLKey = "NSPersistentStoreURLKey"
    /// `userInfo` key of a remote-change notification: the store's identifier (its UUID).
    public static let storeUUIDKey = "NSStoreUUIDKey"
    /// `userInfo` key of a remote-change notification: the newest ``HistoryToken``.
    public static let historyTokenKey = "NSPersistentHistoryTokenKey"
}

import Foundation

/// A copy of a store's rows in memory, answering fetches exactly as the in-memory store does (the same
/// predicate evaluation, sort order and relationship semantics): what a store on a server keeps so that every
/// read gives the in-memory store's answers, while the server holds the data and decides conflicts.
///
/// Large values the store keeps apart from its rows stay there: the copy holds a ``StoredValueReference`` in
/// their slots (saves keep references as they are), which the bytes are read through only when used.
///
/// For store implementations (`@_spi(StoreImplementation) import ObjectGraph`); not a stable public API.
@_spi(StoreImplementation)
public final class StoreReplica: Sendable {
    let memory: InMemoryStore
    /// Whether some entity has an external-storage attribute (whose comparisons predicates are checked for).
    let hasExternalBinaryAttributes: Bool

    /// An empty replica for a store named `identifier` holding rows of `model`.
    public init(identifier: String, model: ManagedObjectModel) {
        memory = InMemoryStore(identifier: identifier, model: model, keepsExternalReferences: true)
        hasExternalBinaryAttributes = model.entities.contains { !$0.externalBinaryAttributeIndexes.isEmpty }
    }

    /// The object ID of the row `primaryKey` of `entityName` in this store.
    public func objectID(entityName: String, primaryKey: Int64) -> ManagedObjectID {
        memory.idNamespaces.id(entityName: entityName, key: primaryKey)
    }

    /// ``IncrementalStore/fetch(_:)`` on the copy. A predicate comparing an external-storage attribute with anything
    /// but nil is refused (``ObjectGraphError/predicate(_:)`` of kind `unsupported`), as by an SQLite store.
    public func fetch(_ request: StoreFetchRequest) throws(ObjectGraphError) -> [RowSnapshot] {
        try checkExternalDataComparisons(request.predicate, on: request.entity)
        return try memory.fetch(request)
    }

    /// ``IncrementalStore/count(_:)`` on the copy (predicates checked as by ``fetch(_:)``).
    public func count(_ request: StoreFetchRequest) throws(ObjectGraphError) -> Int {
        try checkExternalDataComparisons(request.predicate, on: request.entity)
        return try memory.count(request)
    }

    /// ``IncrementalStore/rows(for:entity:)`` on the copy.
    public func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        try memory.rows(for: ids, entity: entity)
    }

    /// ``IncrementalStore/relatedIDs(of:entity:relationshipIndex:)`` on the copy.
    public func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        try memory.relatedIDs(of: objectID, entity: entity, relationshipIndex: relationshipIndex)
    }

    /// ``IncrementalStore/relatedIDs(ofMany:entity:relationshipIndex:)`` on the copy.
    public func relatedIDs(ofMany objectIDs: [ManagedObjectID], entity: EntityDescription, relationshipIndex: Int)
        throws(ObjectGraphError) -> [ManagedObjectID: [ManagedObjectID]]
    {
        try memory.relatedIDs(ofMany: objectIDs, entity: entity, relationshipIndex: relationshipIndex)
    }

    /// Applies a save the server has accepted (every insert must carry its permanent ID): versions are checked
    /// against the copy, as the in-memory store checks them.
    public func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult { try memory.save(request) }

    /// The keys of the relationship lists a save changes on the copy (``relationshipList(forKey:)``): the owners'
    /// and, for many-to-many changes, the other sides'; every list of a deleted object.
    public func relationshipKeys(touchedBy request: StoreSaveRequest, permanentIDs: [ManagedObjectID: ManagedObjectID])
        -> Set<String>
    {
        var keys: Set<String> = []
        let model = memory.model
        func key(_ id: ManagedObjectID, _ entity: EntityDescription, _ index: Int) -> String? {
            guard let pk = (permanentIDs[id] ?? id).primaryKey else { return nil }
            return InMemoryStore.joinKey(entity, index, pk)
        }
        for change in request.orderChanges {
            if let k = key(change.objectID, change.entity, change.relationshipIndex) { keys.insert(k + "#order") }
        }
        for change in request.joinChanges {
            if let k = key(change.objectID, change.entity, change.relationshipIndex) { keys.insert(k) }
            guard let inverseName = change.entity.relationships[change.relationshipIndex].inverseName else { continue }
            for id in change.added + change.removed {
                let resolved = permanentIDs[id] ?? id
                guard let destination = model.entity(named: resolved.entityName),
                    let inverse = destination.relationships.firstIndex(where: { $0.name == inverseName }),
                    let k = key(resolved, destination, inverse)
                else { continue }
                keys.insert(k)
            }
        }
        for delete in request.deletes {
            for index in delete.entity.relationships.indices {
                if let k = key(delete.objectID, delete.entity, index) { keys.insert(k) }
            }
        }
        return keys
    }

    /// The members of one relationship list of the copy (nil when it has none).
    public func relationshipList(forKey key: String) -> [ManagedObjectID]? { memory.state.withLock { $0.joins[key] } }

    /// What a ``replaceAll(rows:lists:)`` changed: rows that came and went, and rows whose version, values or
    /// relationships changed.
    public struct Difference: Sendable {
        /// Rows the copy did not hold.
        public var inserted: [ManagedObjectID] = []
        /// Rows held at another version or with other values, or whose relationships changed.
        public var updated: [ManagedObjectID] = []
        /// Rows the copy held and no longer holds.
        public var deleted: [ManagedObjectID] = []
        /// Whether nothing changed.
        public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// Replaces everything the copy holds (as ``replaceAll(rows:lists:)``) and returns what that changed.
    @discardableResult
    public func replaceAllReportingDifference(rows: [RowSnapshot], lists: [String: [ManagedObjectID]]) -> Difference {
        let (oldRows, oldLists) = memory.state.withLock { ($0.rows, $0.joins) }
        var before: [ManagedObjectID: InMemoryStore.Row] = [:]
        for (_, byKey) in oldRows {
            for (key, row) in byKey { before[objectID(entityName: row.entityName, primaryKey: key)] = row }
        }
        var difference = Difference()
        var changed: Set<ManagedObjectID> = []
        for row in rows {
            guard let held = before.removeValue(forKey: row.objectID) else {
                difference.inserted.append(row.objectID)
                continue
            }
            // (Values too: a store replaced by another's contents may hold a different row at the same version.)
            if held.version != row.version || held.values != row.values || held.toOne != row.toOne {
                changed.insert(row.objectID)
            }
        }
        difference.deleted = Array(before.keys)
        // A list that changed changes its owner (`Entity.relationship#key`, and its `#order` twin).
        let deleted = Set(difference.deleted), inserted = Set(difference.inserted)
        for key in Set(oldLists.keys).union(lists.keys) where oldLists[key] != lists[key] {
            guard let dot = key.firstIndex(of: "."), let hash = key.firstIndex(of: "#"), dot < hash,
                let primaryKey = Int64(key[key.index(after: hash)...].prefix { $0 != "#" })
            else { continue }
            let owner = objectID(entityName: String(key[..<dot]), primaryKey: primaryKey)
            if !deleted.contains(owner), !inserted.contains(owner) { changed.insert(owner) }
        }
        difference.updated = Array(changed)
        replaceAll(rows: rows, lists: lists)
        return difference
    }

    /// Replaces everything the copy holds: `rows`, relationship `lists` by key, and the key counters.
    public func replaceAll(rows: [RowSnapshot], lists: [String: [ManagedObjectID]]) {
        var state = InMemoryStore.State()
        // Rows come a table at a time: the entity's root is worked out when the entity changes, and each root's
        // rows go into one dictionary of their own (a lookup of the model and two of the state per row took half
        // of a PostgreSQL store's opening).
        var entityName: String?
        var entityRoot: String?
        var root: String?
        var held: [Int64: InMemoryStore.Row] = [:]
        var highest: Int64 = 0
        // Each root's dictionary is made as large as its rows need at once: grown by doubling, a million rows'
        // dictionary held its old and new storage together (150 MB at the peak instead of 96 MB).
        var rowsByRoot: [String: Int] = [:]
        var countedName: String?
        var countedRoot: String?
        for row in rows {
            let name = row.objectID.entityName
            if name != countedName {
                countedName = name
                countedRoot = memory.model.entity(named: name).map(memory.root)
            }
            if let countedRoot { rowsByRoot[countedRoot, default: 0] += 1 }
        }
        func flush() {
            guard let root else { return }
            state.rows[root] = held
            state.maxPrimaryKey[root] = max(state.maxPrimaryKey[root] ?? 0, highest)
        }
        for row in rows {
            let name = row.objectID.entityName
            if name != entityName {
                entityName = name
                entityRoot = memory.model.entity(named: name).map(memory.root)
            }
            guard let rowRoot = entityRoot, let key = row.objectID.primaryKey else { continue }
            if rowRoot != root {
                flush()
                root = rowRoot
                held = state.rows.removeValue(forKey: rowRoot) ?? [:]
                held.reserveCapacity(held.count + (rowsByRoot.removeValue(forKey: rowRoot) ?? 0))
                highest = state.maxPrimaryKey[rowRoot] ?? 0
            }
            held[key] = InMemoryStore.Row(entityName: name, values: row.values, version: row.version, toOne: row.toOne)
            highest = max(highest, key)
        }
        flush()
        state.joins = lists
        memory.state.withLock { $0 = state }
    }

    /// Applies another writer's commit to the copy: `rows` inserted or replaced (a row the copy holds at a newer
    /// version is kept: versions only grow), `deleted` removed (with their lists), and relationship lists set
    /// (nil: removed).
    public func apply(rows: [RowSnapshot], deleted: [ManagedObjectID], lists: [String: [ManagedObjectID]?]) {
        let model = memory.model
        memory.state.withLock { state in
            for row in rows {
                guard let entity = model.entity(named: row.objectID.entityName), let key = row.objectID.primaryKey
                else { continue }
                let root = memory.root(entity)
                if let held = state.rows[root]?[key], held.version > row.version { continue }
                state.rows[root, default: [:]][key] = InMemoryStore.Row(entityName: entity.name, values: row.values,
                    version: row.version, toOne: row.toOne)
                state.maxPrimaryKey[root] = max(state.maxPrimaryKey[root] ?? 0, key)
            }
            for id in deleted {
                guard let entity = model.entity(named: id.entityName), let key = id.primaryKey else { continue }
                state.rows[memory.root(entity)]?[key] = nil
                for index in entity.relationships.indices {
                    state.joins[InMemoryStore.joinKey(entity, index, key)] = nil
                    state.joins[InMemoryStore.joinKey(entity, index, key) + "#order"] = nil
                }
            }
            for (key, list) in lists { state.joins[key] = list }
        }
    }

    /// A second replica holding what this one holds now (copy on write: cheap), to try a change on.
    public func copy() -> StoreReplica {
        let other = StoreReplica(identifier: memory.identifier, model: memory.model)  // (keeps references too)
        let state = memory.state.withLock { $0 }
        other.memory.state.withLock { $0 = state }
        return other
    }

    /// Runs a batch operation on this replica (as the in-memory store runs it: delete rules included; predicates
    /// checked as by ``fetch(_:)``).
    public func execute(_ operation: StoreBatchOperation, label: TransactionLabel) throws(ObjectGraphError)
        -> StoreBatchOutcome
    {
        switch operation {
        case .update(let entity, let predicate, _, _), .delete(let entity, let predicate, _, _):
            try checkExternalDataComparisons(predicate, on: entity)
        case .insert:
            break
        }
        return try memory.execute(operation, label: label)
    }

    /// The keys of the relationship lists that differ between this replica and `other`.
    public func relationshipKeys(differingFrom other: StoreReplica) -> Set<String> {
        let mine = memory.state.withLock { $0.joins }
        let theirs = other.memory.state.withLock { $0.joins }
        var keys: Set<String> = []
        for (key, list) in mine where theirs[key] != list { keys.insert(key) }
        for key in theirs.keys where mine[key] == nil { keys.insert(key) }
        return keys
    }

    /// Dictionary fetches on the copy (see ``ReplicatedStore``).
    var batchBackend: any BatchStoreBackend { memory }
}

/// A store that keeps a ``StoreReplica`` of its rows: the coordinator answers dictionary (and aggregate) fetches
/// from the replica, as the in-memory store answers them.
@_spi(StoreImplementation)
public protocol ReplicatedStore: IncrementalStore {
    /// The store's replica, up to date with every commit the store has seen.
    var replica: StoreReplica { get throws(ObjectGraphError) }
}

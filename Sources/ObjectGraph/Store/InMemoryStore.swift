import Foundation
import Synchronization

/// A store that keeps its rows in memory: fast, private to the process, gone when the coordinator is.
///
/// It evaluates predicates and sorts with exactly the code paths the SQLite store mirrors in SQL, which
/// makes it both a test double and an oracle.
///
/// The atomic store is this store with a ``file``: every change is applied to a copy of the rows, the copy is
/// written whole to the file (``AtomicStoreFile``), and only then does it become the store's state (see
/// ``commit(_:)``), so a failed write leaves both the file and the rows as they were.
final class InMemoryStore: StoreBackend, @unchecked Sendable {
    struct Row {
        var entityName: String
        var values: [AttributeValue]
        var version: Int64
        var toOne: [ManagedObjectID?] = []
    }
    struct State {
        var rows: [String: [Int64: Row]] = [:]
        var maxPrimaryKey: [String: Int64] = [:]
        /// Many-to-many contents, per `"Entity.relationship#key"`, in insertion order.
        var joins: [String: [ManagedObjectID]] = [:]
        /// The persistent history (atomic stores with history tracking), oldest first.
        var history: [PersistentHistoryTransaction] = []
        /// The next history transaction number (never reused, even after a purge).
        var nextTransaction: Int64 = 1
    }

    static func joinKey(_ entity: EntityDescription, _ index: Int, _ key: Int64) -> String {
        "\(entity.name).\(entity.relationships[index].name)#\(key)"
    }

    let identifier: String
    /// The namespaces of the IDs this store hands out.
    let idNamespaces: StoreIDNamespaces
    let model: ManagedObjectModel
    /// A read-only in-memory store stays empty for good; it exists so that both store types honour the option.
    /// A read-only atomic store keeps what its file held and never writes it.
    let isReadOnly: Bool
    let state = Locked(State())
    /// The file an atomic store rewrites after every change; nil for a store that lives in memory only.
    let file: AtomicStoreFile?
    /// Whether every transaction is recorded in ``State/history`` (an atomic store with
    /// ``PersistentStoreOptions/persistentHistoryTracking``, or whose file already holds history).
    let recordsHistory: Bool
    /// Whether saves keep references to values held elsewhere as they are (a ``StoreReplica``, whose store holds
    /// the bytes) instead of reading them in.
    let keepsExternalReferences: Bool

    init(
        identifier: String, model: ManagedObjectModel, isReadOnly: Bool = false, file: AtomicStoreFile? = nil,
        recordsHistory: Bool = false, keepsExternalReferences: Bool = false
    ) {
        self.keepsExternalReferences = keepsExternalReferences
        self.identifier = identifier
        idNamespaces = StoreIDNamespaces(model: model, storeIdentifier: identifier)
        self.model = model
        self.isReadOnly = isReadOnly
        self.file = file
        self.recordsHistory = recordsHistory
    }

    /// How errors name the store: the atomic store's file, or the in-memory store's identifier.
    var displayName: String { file?.url.path ?? "in-memory \(identifier)" }

    /// Reserves keys from the hierarchy's counter, which later inserts continue after.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws(ObjectGraphError) -> Range<Int64> {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        guard count > 0 else { return 0..<0 }
        let root = root(entity)
        return try commit { state in
            let first = (state.maxPrimaryKey[root] ?? 0) + 1
            state.maxPrimaryKey[root] = first + Int64(count) - 1
            return .success(first..<(first + Int64(count)))
        }
    }

    /// Nothing to write for an in-memory store (the coordinator's ``PersistentStore`` keeps its metadata); an
    /// atomic store rewrites its file with the new metadata.
    func writeMetadata(_ metadata: StoreMetadata) throws(ObjectGraphError) {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        try file?.replaceMetadata(metadata, rows: self)
    }

    /// Rows are kept per root entity: a hierarchy shares one primary-key space, as in the SQLite store.
    func root(_ entity: EntityDescription) -> String { model.rootEntity(of: entity).name }

    func fetch(
        entity: EntityDescription, predicate: FetchPredicate?, sortCriteria: [SortCriterion], limit: Int,
        offset: Int, includesSubentities: Bool
    ) throws(ObjectGraphError) -> [RowSnapshot] {
        let wanted = Set(includesSubentities ? model.entityAndDescendants(of: entity).map(\.name) : [entity.name])
        let root = root(entity)
        let ordering = RowOrdering(criteria: sortCriteria)
        try ordering.validate(for: entity, in: model)
        do {
            try predicate?.validate(for: entity, in: model)
        } catch {
            throw .predicate(error)
        }
        if predicate == nil, sortCriteria.isEmpty {
            return unorderedRows(root: root, wanted: wanted, limit: limit, offset: offset)
        }
        var matches: [(keys: [AttributeValue], snapshot: RowSnapshot)] = []
        for subject in matchingSubjects(root: root, wanted: wanted, predicate: predicate, in: state.withLock { $0 }) {
            let row = subject.row
            matches.append((ordering.sortKeys(for: subject),
                RowSnapshot(objectID: subject.id, values: row.values, version: row.version, toOne: row.toOne)))
        }
        matches.sort { ordering.precedes($0.keys, $0.snapshot.objectID, $1.keys, $1.snapshot.objectID) }
        let start = min(max(offset, 0), matches.count)
        let end = limit > 0 ? min(start + limit, matches.count) : matches.count
        return matches[start..<end].map(\.snapshot)
    }

    /// Every row of the hierarchy `root` whose entity is in `wanted`, by primary key (the order a fetch without
    /// sort criteria gives: keys are unique in a hierarchy), after `offset` and up to `limit`: without predicate
    /// subjects or sort keys, which a plain fetch of every row does not need.
    private func unorderedRows(root: String, wanted: Set<String>, limit: Int, offset: Int) -> [RowSnapshot] {
        let rows = state.withLock { $0.rows[root] } ?? [:]
        var keys: [Int64] = []
        keys.reserveCapacity(rows.count)
        for (key, row) in rows where wanted.contains(row.entityName) { keys.append(key) }
        keys.sort()
        let start = min(max(offset, 0), keys.count)
        let end = limit > 0 ? min(start + limit, keys.count) : keys.count
        var result: [RowSnapshot] = []
        result.reserveCapacity(end - start)
        for key in keys[start..<end] {
            guard let row = rows[key] else { continue }
            result.append(RowSnapshot(objectID: idNamespaces.id(entityName: row.entityName, key: key), values: row.values,
                version: row.version, toOne: row.toOne))
        }
        return result
    }

    /// The rows of the hierarchy `root` whose entity is in `wanted` and that match `predicate`, as subjects
    /// that follow relationships through `state` (a snapshot: copy-on-write, so cheap), in no particular order.
    func matchingSubjects(root: String, wanted: Set<String>, predicate: FetchPredicate?, in state: State) -> [RowSubject] {
        let graph = RowGraph(store: self, state: state)
        var subjects: [RowSubject] = []
        for (key, row) in graph.state.rows[root] ?? [:] where wanted.contains(row.entityName) {
            guard let subject = graph.subject(for: key, row: row) else { continue }
            if let predicate, !predicate.evaluate(subject: subject) { continue }
            subjects.append(subject)
        }
        return subjects
    }

    /// The store's rows as predicate subjects: values from the row, relationships through other rows
    /// (to-many contents looked up once per fetch).
    final class RowGraph {
        let store: InMemoryStore
        let state: State
        private struct RelatedKey: Hashable {
            let entity: ObjectIdentifier
            let index: Int
            let key: Int64
        }
        private var related: [RelatedKey: [ManagedObjectID]] = [:]

        init(store: InMemoryStore, state: State) {
            self.store = store
            self.state = state
        }

        func subject(for key: Int64, row: Row) -> RowSubject? {
            guard let entity = store.model.entity(named: row.entityName) else { return nil }
            let id = store.idNamespaces.id(entityName: row.entityName, key: key)
            return RowSubject(graph: self, id: id, row: row, entity: entity)
        }

        private var subjects: [ManagedObjectID: RowSubject] = [:]

        func subject(for id: ManagedObjectID) -> RowSubject? {
            if let known = subjects[id] { return known }
            guard let key = id.primaryKey, let entity = store.model.entity(named: id.entityName),
                let row = state.rows[store.root(entity)]?[key], let subject = subject(for: key, row: row)
            else { return nil }
            subjects[id] = subject
            return subject
        }

        /// For one-to-many relationships: the destinations of every owner, by the owner's key, found with one
        /// pass over the destination's rows (keyed by the inverse, `"Entity.relationship"`). Predicates do not
        /// depend on the order of a to-many relationship, so these lists are in no particular order.
        private var inverseIndexes: [String: [Int64: [ManagedObjectID]]] = [:]

        private func inverseIndex(_ inverse: RelationshipDescription, of destination: EntityDescription, owner: EntityDescription)
            -> [Int64: [ManagedObjectID]]
        {
            let indexKey = destination.name + "." + inverse.name
            if let known = inverseIndexes[indexKey] { return known }
            let model = store.model
            let family = Set(model.entityAndDescendants(of: destination).map(\.name))
            let ownerRoot = store.root(owner)
            var index: [Int64: [ManagedObjectID]] = [:]
            for (key, row) in state.rows[store.root(destination)] ?? [:] where family.contains(row.entityName) {
                guard let concrete = model.entity(named: row.entityName),
                    let position = concrete.relationships.firstIndex(where: { $0.name == inverse.name }),
                    position < row.toOne.count, let target = row.toOne[position], let ownerKey = target.primaryKey,
                    model.entity(named: target.entityName).map(store.root) == ownerRoot
                else { continue }
                index[ownerKey, default: []].append(
                    store.idNamespaces.id(entityName: row.entityName, key: key))
            }
            inverseIndexes[indexKey] = index
            return index
        }

        func relatedIDs(of subject: RowSubject, relationshipIndex index: Int) -> [ManagedObjectID] {
            let relationship = subject.entity.relationships[index]
            if let destination = store.model.entity(named: relationship.destinationEntityName),
                let inverse = relationship.inverseName.flatMap(destination.relationship(named:)), !inverse.isToMany,
                !relationship.isOrdered  // the index knows no order; an ordered relationship reads its order below
            {
                return inverseIndex(inverse, of: destination, owner: subject.entity)[subject.id.primaryKey ?? -1] ?? []
            }
            let cacheKey = RelatedKey(entity: ObjectIdentifier(subject.entity), index: index, key: subject.id.primaryKey ?? 0)
            if let cached = related[cacheKey] { return cached }
            let ids = (try? store.relatedIDs(of: subject.id, entity: subject.entity, relationshipIndex: index, in: state)) ?? []
            related[cacheKey] = ids
            return ids
        }
    }

    struct RowSubject: PredicateSubject {
        let graph: RowGraph
        let id: ManagedObjectID
        let row: Row
        let entity: EntityDescription

        func predicateValue(forKey key: String) -> AttributeValue {
            guard let index = entity.attributeIndex(named: key), index < row.values.count else { return .null }
            return row.values[index]
        }

        func predicateRelationship(_ key: String) -> PredicateRelationship? {
            guard let index = entity.relationships.firstIndex(where: { $0.name == key }) else { return nil }
            if entity.relationships[index].isToMany {
                return .toMany(graph.relatedIDs(of: self, relationshipIndex: index).compactMap(graph.subject(for:)))
            }
            return .toOne(index < row.toOne.count ? row.toOne[index].flatMap(graph.subject(for:)) : nil)
        }

        var predicateObjectID: ManagedObjectID? { id }
        var predicateEntity: (EntityDescription, ManagedObjectModel)? { (entity, graph.store.model) }
    }

    func count(entity: EntityDescription, predicate: FetchPredicate?, includesSubentities: Bool, limit: Int)
        throws(ObjectGraphError) -> Int
    {
        guard predicate == nil else {
            return try fetch(entity: entity, predicate: predicate, sortCriteria: [], limit: max(limit, 0), offset: 0,
                includesSubentities: includesSubentities).count
        }
        // Every row of the entities: counted where they are (made into rows first, a million took 0.3 s).
        let wanted = Set(includesSubentities ? model.entityAndDescendants(of: entity).map(\.name) : [entity.name])
        let rows = state.withLock { $0.rows[root(entity)] } ?? [:]
        let wholeHierarchy = wanted.count == model.entityAndDescendants(of: model.rootEntity(of: entity)).count
        let total = wholeHierarchy ? rows.count : rows.values.reduce(0) { $0 + (wanted.contains($1.entityName) ? 1 : 0) }
        return limit > 0 ? min(total, limit) : total
    }

    func rows(for ids: [ManagedObjectID], entity: EntityDescription) throws(ObjectGraphError) -> [RowSnapshot] {
        // The root's table is looked up once: per ID (its root's name worked out, the table retained and released
        // each time) it was most of a million-row fetch's time in a PostgreSQL store's replica.
        let rootName = root(entity)
        return state.withLock { state in
            guard let table = state.rows[rootName] else { return [] }
            var result: [RowSnapshot] = []
            result.reserveCapacity(ids.count)
            for id in ids {
                guard let key = id.primaryKey, let row = table[key] else { continue }
                result.append(RowSnapshot(objectID: id, values: row.values, version: row.version, toOne: row.toOne))
            }
            return result
        }
    }

    func relatedIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex index: Int)
        throws(ObjectGraphError) -> [ManagedObjectID]
    {
        guard let key = objectID.primaryKey else { return [] }
        let relationship = entity.relationships[index]
        guard let destination = model.entity(named: relationship.destinationEntityName) else {
            throw .unknownEntity(relationship.destinationEntityName)
        }
        let inverse = relationship.inverseName.flatMap { destination.relationship(named: $0) }
        return state.withLock { state in
            relatedIDs(of: key, entity: entity, relationshipIndex: index, destination: destination, inverse: inverse,
                in: state)
        }
    }

    /// The to-many contents of the row `objectID` in `state` (the caller holds the lock or a snapshot).
    func relatedIDs(
        of objectID: ManagedObjectID, entity: EntityDescription, relationshipIndex index: Int, in state: State
    ) throws(ObjectGraphError) -> [ManagedObjectID] {
        guard let key = objectID.primaryKey else { return [] }
        let relationship = entity.relationships[index]
        guard let destination = model.entity(named: relationship.destinationEntityName) else {
            throw .unknownEntity(relationship.destinationEntityName)
        }
        let inverse = relationship.inverseName.flatMap { destination.relationship(named: $0) }
        return relatedIDs(of: key, entity: entity, relationshipIndex: index, destination: destination, inverse: inverse,
            in: state)
    }

    private func relatedIDs(
        of key: Int64, entity: EntityDescription, relationshipIndex index: Int, destination: EntityDescription,
        inverse: RelationshipDescription?, in state: State
    ) -> [ManagedObjectID] {
        if let inverse, !inverse.isToMany {
            let order = state.joins[Self.joinKey(entity, index, key) + "#order"] ?? []
            let wanted = Set(model.entityAndDescendants(of: destination).map(\.name))
            return (state.rows[root(destination)] ?? [:]).filter { _, row in
                guard wanted.contains(row.entityName), let concrete = model.entity(named: row.entityName),
                    let inverseIndex = concrete.relationships.firstIndex(where: { $0.name == inverse.name }),
                    inverseIndex < row.toOne.count, let target = row.toOne[inverseIndex]
                else { return false }
                return target.primaryKey == key && model.entity(named: target.entityName).map(root) == root(entity)
            }.keys.sorted().compactMap { pk in
                state.rows[root(destination)]?[pk].map {
                    idNamespaces.id(entityName: $0.entityName, key: pk)
                }
            }.sorted { lhs, rhs in
                // Ordered relationships keep their saved order; others (and newcomers) follow by key.
                (order.firstIndex(of: lhs) ?? Int.max, lhs.key) < (order.firstIndex(of: rhs) ?? Int.max, rhs.key)
            }
        }
        let members = state.joins[Self.joinKey(entity, index, key)] ?? []
        let order = state.joins[Self.joinKey(entity, index, key) + "#order"] ?? []
        guard !order.isEmpty else { return members }
        return members.enumerated().sorted { lhs, rhs in
            (order.firstIndex(of: lhs.element) ?? Int.max, lhs.offset) < (order.firstIndex(of: rhs.element) ?? Int.max, rhs.offset)
        }.map(\.element)
    }

    func save(_ request: StoreSaveRequest) throws(ObjectGraphError) -> StoreSaveResult {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        // Every value stays in memory: a reference to a file of an SQLite store (an object that came from one
        // before a migration) is read now.
        let request = keepsExternalReferences ? request : try ExternalBinaryReference.inlined(request)
        return try commit { state in
            // Check every expectation before changing anything: all or nothing.
            var conflicts: [MergeConflict] = []
            for update in request.updates {
                let current = update.objectID.primaryKey.flatMap { state.rows[root(update.entity)]?[$0] }
                if current?.version != update.expectedVersion {
                    conflicts.append(MergeConflict(objectID: update.objectID, expectedVersion: update.expectedVersion,
                        storeVersion: current?.version ?? 0))
                }
            }
            for delete in request.deletes {
                let current = delete.objectID.primaryKey.flatMap { state.rows[root(delete.entity)]?[$0] }
                if current?.version != delete.expectedVersion {
                    conflicts.append(MergeConflict(objectID: delete.objectID, expectedVersion: delete.expectedVersion,
                        storeVersion: current?.version ?? 0))
                }
            }
            if !conflicts.isEmpty { return .failure(.mergeConflicts(conflicts)) }
            for insert in request.inserts {
                guard let id = insert.permanentID, let key = id.primaryKey else { continue }
                if state.rows[root(insert.entity)]?[key] != nil { return .failure(.duplicateObjectID(id)) }
            }

            // (Read before the rows go.)
            let tombstones = recordsHistory ? request.deletes.map { delete in
                delete.objectID.primaryKey.flatMap { tombstone(of: delete.entity, key: $0, in: state) }
            } : []
            var result = StoreSaveResult()
            for insert in request.inserts {
                let key: Int64
                if let preassigned = insert.permanentID?.primaryKey {
                    // Obtained ahead of the save; the counter already moved past it.
                    key = preassigned
                    state.maxPrimaryKey[root(insert.entity)] = max(state.maxPrimaryKey[root(insert.entity)] ?? 0, key)
                } else {
                    key = (state.maxPrimaryKey[root(insert.entity)] ?? 0) + 1
                    state.maxPrimaryKey[root(insert.entity)] = key
                }
                let id = idNamespaces.id(entityName: insert.entity.name, key: key)
                result.permanentIDs[insert.temporaryID] = id
                result.versions[id] = 1
            }
            let resolve = { (ids: [ManagedObjectID?]) in ids.map { $0.map { result.permanentIDs[$0] ?? $0 } } }
            for insert in request.inserts {
                guard let key = result.permanentIDs[insert.temporaryID]?.primaryKey else { continue }
                state.rows[root(insert.entity), default: [:]][key] = Row(
                    entityName: insert.entity.name, values: insert.values, version: 1, toOne: resolve(insert.toOne))
            }
            for update in request.updates {
                guard let key = update.objectID.primaryKey else { continue }
                let version = update.expectedVersion + 1
                state.rows[root(update.entity)]?[key] = Row(
                    entityName: update.entity.name, values: update.values, version: version, toOne: resolve(update.toOne))
                result.versions[update.objectID] = version
            }
            for delete in request.deletes {
                guard let key = delete.objectID.primaryKey else { continue }
                state.rows[root(delete.entity)]?[key] = nil
                for index in delete.entity.relationships.indices {
                    state.joins[Self.joinKey(delete.entity, index, key)] = nil
                }
            }
            for change in request.orderChanges {
                guard let key = (result.permanentIDs[change.objectID] ?? change.objectID).primaryKey else { continue }
                state.joins[Self.joinKey(change.entity, change.relationshipIndex, key) + "#order"] =
                    change.added.map { result.permanentIDs[$0] ?? $0 }
            }
            // Lists are edited through working copies that know their members, each written back once: a tag
            // that thousands of people of one save join was copied and searched per person (quadratic).
            var lists = JoinListEdits()
            for change in request.joinChanges {
                guard let key = (result.permanentIDs[change.objectID] ?? change.objectID).primaryKey else { continue }
                let joinKey = Self.joinKey(change.entity, change.relationshipIndex, key)
                lists.remove(change.removed.map { result.permanentIDs[$0] ?? $0 }, from: joinKey, in: state.joins)
                for id in change.added { lists.append(result.permanentIDs[id] ?? id, to: joinKey, in: state.joins) }
                // Mirror on the inverse side, which may not have been loaded (and so not changed) by the saver.
                let owner = result.permanentIDs[change.objectID] ?? change.objectID
                guard let inverseName = change.entity.relationships[change.relationshipIndex].inverseName else { continue }
                for (ids, adding) in [(change.added, true), (change.removed, false)] {
                    for id in ids.map({ result.permanentIDs[$0] ?? $0 }) {
                        guard let destination = model.entity(named: id.entityName), let pk = id.primaryKey,
                            let inverse = destination.relationships.firstIndex(where: { $0.name == inverseName })
                        else { continue }
                        let key = Self.joinKey(destination, inverse, pk)
                        if adding {
                            lists.append(owner, to: key, in: state.joins)
                        } else {
                            lists.remove([owner], from: key, in: state.joins)
                        }
                    }
                }
            }
            lists.write(into: &state.joins)
            if recordsHistory {
                var changes: [(id: ManagedObjectID, type: PersistentHistoryChange.ChangeType, updated: Set<String>?,
                    tombstone: [String: AttributeValue]?)] = []
                for insert in request.inserts {
                    if let id = insert.permanentID ?? result.permanentIDs[insert.temporaryID] { changes.append((id, .insert, nil, nil)) }
                }
                for update in request.updates {
                    changes.append((update.objectID, .update, Self.changedNames(update.entity, update.changedProperties), nil))
                }
                for (delete, tombstone) in zip(request.deletes, tombstones) {
                    changes.append((delete.objectID, .delete, nil, tombstone))
                }
                result.transactionNumber = recordHistory(changes, author: request.author, contextName: request.contextName,
                    in: &state)
            }
            return .success(result)
        }
    }
}

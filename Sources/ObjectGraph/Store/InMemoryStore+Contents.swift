import Foundation

// MARK: Committing changes (in memory, or through the atomic store's file)

extension InMemoryStore {
    /// Applies `change` to the store's rows, all or nothing, and returns its result.
    ///
    /// In memory only, `change` runs on the rows themselves, under the state lock (it checks everything before
    /// it changes anything, so a failure changes nothing). With a ``file`` (the atomic store), writers take
    /// turns on the file; `change` runs on a copy of the rows, the copy is written whole to the file, and only
    /// once the file has been replaced does the copy become what readers see. A change that fails, or a write
    /// that fails, leaves the rows and the file as they were.
    func commit<T>(_ change: (inout State) -> Result<T, ObjectGraphError>) throws(ObjectGraphError) -> T {
        guard let file else { return try state.withLock { change(&$0) }.get() }
        return try file.rewrite(model: model) { () throws(ObjectGraphError) in
            var next = state.withLock { $0 }
            let result = try change(&next).get()
            return (next, result)
        } publish: { next in
            state.withLock { $0 = next }
        }
    }
}

// MARK: Whole contents (store management: migrating a store to or from memory)

extension InMemoryStore {
    /// The highest primary key handed out so far in each hierarchy, by root entity name.
    var primaryKeyMaxima: [String: Int64] { state.withLock { $0.maxPrimaryKey } }

    /// Replaces everything the store holds with `contents`: rows keep their keys, versions and to-one
    /// destinations, to-many relationships their members and order, and key counters continue after the
    /// source's. The rows' IDs must name this store's identifier. Used to fill a new store, so it loads even
    /// a read-only one.
    func load(_ contents: StoreContents) {
        var loaded = State()
        for row in contents.rows {
            guard let entity = model.entity(named: row.objectID.entityName), let key = row.objectID.primaryKey else {
                continue
            }
            let root = root(entity)
            loaded.rows[root, default: [:]][key] = Row(
                entityName: entity.name, values: row.values, version: row.version, toOne: row.toOne)
            loaded.maxPrimaryKey[root] = max(loaded.maxPrimaryKey[root] ?? 0, key)
        }
        for (name, maximum) in contents.primaryKeyMaxima {
            loaded.maxPrimaryKey[name] = max(loaded.maxPrimaryKey[name] ?? 0, maximum)
        }
        for relation in contents.toMany {
            guard let key = relation.owner.primaryKey else { continue }
            let relationship = relation.entity.relationships[relation.relationshipIndex]
            let joinKey = Self.joinKey(relation.entity, relation.relationshipIndex, key)
            let inverse = relationship.inverseName.flatMap {
                model.entity(named: relationship.destinationEntityName)?.relationship(named: $0)
            }
            // One-to-many contents follow from the destinations' to-one values; others are kept as lists.
            let derivedFromInverse = inverse.map { !$0.isToMany } ?? false
            if !derivedFromInverse { loaded.joins[joinKey] = relation.members }
            if relationship.isOrdered { loaded.joins[joinKey + "#order"] = relation.members }
        }
        state.withLock { $0 = loaded }
    }
}

extension InMemoryStore {
    /// Everything the store holds, read in one pass over its rows (each one-to-many relationship is gathered
    /// from its destinations' to-one values once, not once per owner): what ``StoreContents/read(from:model:)``
    /// reads from any store, in the same order and with the same members.
    ///
    /// - Parameter userInfo: the app's metadata keys to carry along.
    func contents(userInfo: [String: MetadataValue]) -> StoreContents {
        let state = self.state.withLock { $0 }
        var contents = StoreContents(primaryKeyMaxima: state.maxPrimaryKey.filter { $0.value > 0 }, userInfo: userInfo)
        var inverseIndexes: [String: [Int64: [ManagedObjectID]]] = [:]
        for (_, rows) in state.rows.sorted(by: { $0.key < $1.key }) {
            for (key, row) in rows.sorted(by: { $0.key < $1.key }) {
                let id = idNamespaces.id(entityName: row.entityName, key: key)
                contents.rows.append(RowSnapshot(objectID: id, values: row.values, version: row.version, toOne: row.toOne))
                guard let entity = model.entity(named: row.entityName) else { continue }
                for (index, relationship) in entity.relationships.enumerated()
                where relationship.isToMany && !relationship.isTransient {
                    let members = toManyMembers(of: id, entity: entity, relationshipIndex: index, in: state,
                        inverseIndexes: &inverseIndexes)
                    guard !members.isEmpty else { continue }
                    contents.toMany.append(StoreContents.ToMany(owner: id, entity: entity, relationshipIndex: index,
                        members: members))
                }
            }
        }
        return contents
    }

    /// The members of one to-many relationship, as ``relatedIDs(of:entity:relationshipIndex:)`` gives them, with
    /// one-to-many contents looked up in `inverseIndexes` (built on first use, per destination and inverse).
    private func toManyMembers(
        of id: ManagedObjectID, entity: EntityDescription, relationshipIndex index: Int, in state: State,
        inverseIndexes: inout [String: [Int64: [ManagedObjectID]]]
    ) -> [ManagedObjectID] {
        let relationship = entity.relationships[index]
        guard let key = id.primaryKey, let destination = model.entity(named: relationship.destinationEntityName),
            let inverse = relationship.inverseName.flatMap(destination.relationship(named:)), !inverse.isToMany
        else {
            return (try? relatedIDs(of: id, entity: entity, relationshipIndex: index, in: state)) ?? []
        }
        let ownerRoot = root(entity)
        let indexKey = "\(root(destination))|\(inverse.name)|\(ownerRoot)|\(destination.name)"
        if inverseIndexes[indexKey] == nil {
            let family = Set(model.entityAndDescendants(of: destination).map(\.name))
            var built: [Int64: [ManagedObjectID]] = [:]
            for (rowKey, row) in (state.rows[root(destination)] ?? [:]).sorted(by: { $0.key < $1.key })
            where family.contains(row.entityName) {
                guard let concrete = model.entity(named: row.entityName),
                    let position = concrete.relationships.firstIndex(where: { $0.name == inverse.name }),
                    position < row.toOne.count, let target = row.toOne[position], let ownerKey = target.primaryKey,
                    model.entity(named: target.entityName).map(root) == ownerRoot
                else { continue }
                built[ownerKey, default: []].append(
                    idNamespaces.id(entityName: row.entityName, key: rowKey))
            }
            inverseIndexes[indexKey] = built
        }
        let members = inverseIndexes[indexKey]?[key] ?? []
        let order = state.joins[Self.joinKey(entity, index, key) + "#order"] ?? []
        guard !order.isEmpty else { return members }
        var position: [ManagedObjectID: Int] = [:]
        for (offset, member) in order.enumerated() where position[member] == nil { position[member] = offset }
        return members.enumerated().sorted { lhs, rhs in
            (position[lhs.element] ?? Int.max, lhs.offset) < (position[rhs.element] ?? Int.max, rhs.offset)
        }.map(\.element)
    }
}

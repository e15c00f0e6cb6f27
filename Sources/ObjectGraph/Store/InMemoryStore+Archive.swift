import Foundation

/// The in-memory store's rows as an atomic store file (``AtomicStoreArchive``) and back.
extension InMemoryStore {
    /// The archive of `state`, with rows in key order.
    static func archive(
        of state: State, model: ManagedObjectModel, identifier: String, metadata: StoreMetadata, path: String
    ) throws(ObjectGraphError) -> AtomicStoreArchive {
        let metadataBytes: Data
        do {
            metadataBytes = try metadata.propertyList()
        } catch {
            throw .fileOperationFailed(path: path, reason: "the store's metadata could not be encoded (\(error))")
        }
        var byEntity: [String: [AtomicStoreArchive.Row]] = [:]
        for (_, rows) in state.rows {
            for (key, row) in rows {
                let toOne = row.toOne.enumerated().compactMap { slot, id in
                    id.map { AtomicStoreArchive.ToOne(slot: slot, destination: reference($0)) }
                }
                byEntity[row.entityName, default: []].append(AtomicStoreArchive.Row(
                    key: key, version: row.version, values: row.values.map(AtomicStoreArchive.Value.init), toOne: toOne))
            }
        }
        var entities: [AtomicStoreArchive.Entity] = []
        for (name, rows) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: name) else { throw .unknownEntity(name) }
            entities.append(AtomicStoreArchive.Entity(name: name, attributes: entity.attributes.map(\.name),
                relationships: entity.relationships.map(\.name), rows: rows.sorted { $0.key < $1.key }))
        }
        var toMany: [AtomicStoreArchive.ToManyList] = []
        for (joinKey, members) in state.joins where !members.isEmpty {
            guard let parsed = parseJoinKey(joinKey) else { continue }
            toMany.append(AtomicStoreArchive.ToManyList(entity: parsed.entity, relationship: parsed.relationship,
                owner: parsed.owner, isOrder: parsed.isOrder, members: members.map(reference)))
        }
        toMany.sort {
            ($0.entity, $0.relationship, $0.owner, $0.isOrder ? 1 : 0) < ($1.entity, $1.relationship, $1.owner, $1.isOrder ? 1 : 0)
        }
        var archive = AtomicStoreArchive(uuid: identifier, metadata: metadataBytes,
            primaryKeys: state.maxPrimaryKey.filter { $0.value > 0 }, entities: entities, toMany: toMany)
        if !state.history.isEmpty || state.nextTransaction > 1 {
            archive.nextTransaction = state.nextTransaction
            archive.history = state.history.map { transaction in
                AtomicStoreArchive.HistoryTransaction(number: transaction.transactionNumber,
                    timestamp: transaction.timestamp.timeIntervalSinceReferenceDate, author: transaction.author,
                    contextName: transaction.contextName, processID: transaction.processID, bundleID: transaction.bundleID,
                    changes: transaction.changes.map { change in
                        AtomicStoreArchive.HistoryChange(object: reference(change.changedObjectID),
                            type: change.changeType.rawValue, updated: change.updatedProperties.map { $0.sorted() },
                            tombstone: (change.tombstone ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, .init($0.value)) })
                    })
            }
        }
        return archive
    }

    /// The rows of `archive`, checked against `model` (which must be the model the file was written with).
    ///
    /// - Throws: ``ObjectGraphError/damagedStore(path:reason:)`` naming the first thing that does not fit: an
    ///   entity, attribute or relationship the model does not have (in the order it has them), a value of the
    ///   wrong kind, a repeated key, a to-one slot that is not a to-one relationship, a reference to an
    ///   unknown entity.
    static func state(of archive: AtomicStoreArchive, model: ManagedObjectModel, identifier: String, path: String)
        throws(ObjectGraphError) -> State
    {
        func damaged(_ reason: String) -> ObjectGraphError { .damagedStore(path: path, reason: reason) }
        var state = State()
        let namespaces = StoreIDNamespaces(model: model, storeIdentifier: identifier)
        func id(_ reference: AtomicStoreArchive.Reference, _ what: String) throws(ObjectGraphError) -> ManagedObjectID {
            guard model.entity(named: reference.entity) != nil, reference.key > 0 else {
                throw damaged("\(what) names \(reference.entity) \(reference.key), which cannot be a row of this model")
            }
            return namespaces.id(entityName: reference.entity, key: reference.key)
        }
        for archived in archive.entities {
            guard let entity = model.entity(named: archived.name) else {
                throw damaged("it holds rows of entity '\(archived.name)', which the model does not have")
            }
            guard archived.attributes == entity.attributes.map(\.name),
                archived.relationships == entity.relationships.map(\.name)
            else {
                throw damaged("the attributes or relationships it lists for \(entity.name) are not the model's")
            }
            let root = model.rootEntity(of: entity).name
            for row in archived.rows {
                let what = "row \(entity.name) \(row.key)"
                guard row.key > 0, row.version > 0 else {
                    throw damaged("\(what) has version \(row.version); keys and versions start at 1")
                }
                guard state.rows[root]?[row.key] == nil else { throw damaged("key \(row.key) repeats in \(root)") }
                guard row.values.count == entity.attributes.count else {
                    throw damaged("\(what) has \(row.values.count) values for \(entity.attributes.count) attributes")
                }
                for (attribute, value) in zip(entity.attributes, row.values)
                where !attribute.isTransient && !attribute.accepts(value.value) {
                    throw damaged("\(what) holds \(value.value) in \(attribute.attributeType) attribute '\(attribute.name)'")
                }
                var toOne = [ManagedObjectID?](repeating: nil, count: entity.relationships.count)
                for link in row.toOne {
                    guard toOne.indices.contains(link.slot), !entity.relationships[link.slot].isToMany else {
                        throw damaged("\(what) sets to-one slot \(link.slot), which is not a to-one relationship")
                    }
                    toOne[link.slot] = try id(link.destination, what)
                }
                state.rows[root, default: [:]][row.key] = Row(
                    entityName: entity.name, values: row.values.map(\.value), version: row.version, toOne: toOne)
                state.maxPrimaryKey[root] = max(state.maxPrimaryKey[root] ?? 0, row.key)
            }
        }
        for (name, maximum) in archive.primaryKeys {
            guard let entity = model.entity(named: name), entity.parentEntityName == nil else {
                throw damaged("it keeps a key counter for '\(name)', which is not a root entity of the model")
            }
            state.maxPrimaryKey[name] = max(state.maxPrimaryKey[name] ?? 0, maximum)
        }
        for list in archive.toMany {
            guard let entity = model.entity(named: list.entity),
                let index = entity.relationships.firstIndex(where: { $0.name == list.relationship }),
                entity.relationships[index].isToMany
            else {
                throw damaged("it lists members of \(list.entity).\(list.relationship), which is not a to-many relationship")
            }
            var members: [ManagedObjectID] = []
            for member in list.members { members.append(try id(member, "\(list.entity).\(list.relationship)")) }
            state.joins[joinKey(entity, index, list.owner) + (list.isOrder ? "#order" : "")] = members
        }
        var changeID: Int64 = 0
        var previous: Int64 = 0
        for transaction in archive.history ?? [] {
            guard transaction.number > previous else {
                throw damaged("its history transaction \(transaction.number) does not follow \(previous)")
            }
            previous = transaction.number
            var changes: [PersistentHistoryChange] = []
            for change in transaction.changes {
                guard let type = PersistentHistoryChange.ChangeType(rawValue: change.type) else {
                    throw damaged("its history transaction \(transaction.number) has a change of unknown type \(change.type)")
                }
                changeID += 1
                changes.append(PersistentHistoryChange(changeID: changeID,
                    changedObjectID: try id(change.object, "history transaction \(transaction.number)"), changeType: type,
                    updatedProperties: change.updated.map(Set.init),
                    tombstone: change.tombstone.isEmpty ? nil
                        : Dictionary(change.tombstone.map { ($0.name, $0.value.value) }) { first, _ in first }))
            }
            state.history.append(PersistentHistoryTransaction(transactionNumber: transaction.number, storeIdentifier: identifier,
                timestamp: Date(timeIntervalSinceReferenceDate: transaction.timestamp), author: transaction.author,
                contextName: transaction.contextName, processID: transaction.processID, bundleID: transaction.bundleID,
                changes: changes))
        }
        state.nextTransaction = max(archive.nextTransaction ?? 1, previous + 1)
        return state
    }

    /// The row reference of `id`.
    private static func reference(_ id: ManagedObjectID) -> AtomicStoreArchive.Reference {
        AtomicStoreArchive.Reference(entity: id.entityName, key: id.primaryKey ?? 0)
    }

    /// The parts of a ``joinKey(_:_:_:)`` (with `#order` for an order list); nil for anything else.
    static func parseJoinKey(_ joinKey: String) -> (entity: String, relationship: String, owner: Int64, isOrder: Bool)? {
        var text = Substring(joinKey)
        let isOrder = text.hasSuffix("#order")
        if isOrder { text = text.dropLast("#order".count) }
        guard let hash = text.lastIndex(of: "#"), let owner = Int64(text[text.index(after: hash)...]),
            let dot = text[..<hash].firstIndex(of: ".")
        else { return nil }
        return (String(text[..<dot]), String(text[text.index(after: dot)..<hash]), owner, isOrder)
    }
}

import Foundation

extension PersistentStoreCoordinator {
    /// Inserts the request's objects straight into the store that holds its entity, in one transaction.
    ///
    /// - Throws: ``ObjectGraphError/invalidRequest(entity:reason:)`` for an unknown key, a relationship, a
    ///   value that does not fit its attribute or a missing required value (nothing is inserted),
    ///   ``ObjectGraphError/readOnlyStore(store:)``, routing errors, or a store error.
    public func execute(_ request: BatchInsertRequest) throws(ObjectGraphError) -> BatchResult {
        try execute(request, label: TransactionLabel())
    }

    /// ``execute(_:)-(BatchInsertRequest)`` recording `label` in the persistent history.
    func execute(_ request: BatchInsertRequest, label: TransactionLabel) throws(ObjectGraphError) -> BatchResult {
        let entity = try batchEntity(request.entityName)
        let converter = BatchValueConverter(entity: entity)
        let nextRow: () throws(ObjectGraphError) -> [AttributeValue]?
        switch request.source {
        case .objects(let objects):
            var iterator = objects.makeIterator()
            nextRow = { () throws(ObjectGraphError) in
                guard let next = iterator.next() else { return nil }
                return try converter.row(from: next)
            }
        case .handler(let handler):
            var done = false
            nextRow = { () throws(ObjectGraphError) in
                guard !done else { return nil }
                var dictionary: [String: AttributeValue] = [:]
                if handler(&dictionary) {
                    done = true
                    return nil
                }
                return try converter.row(from: dictionary)
            }
        }
        let outcome = try run(label: label, [(try store(for: entity), .insert(entity: entity, nextRow: nextRow))])
        return result(outcome.inserted, RemoteContextSave(inserted: outcome.inserted), request.resultType)
    }

    /// Sets the request's values on every matching object straight in the store, in one transaction, and
    /// drops those rows from the row cache. When several stores hold the entity, each of them runs the update
    /// in its own transaction, one after the other (like a save across stores, not atomic across them).
    ///
    /// - Throws: ``ObjectGraphError/invalidRequest(entity:reason:)`` for values that do not fit (nothing is
    ///   changed), ``ObjectGraphError/predicate(_:)``, ``ObjectGraphError/readOnlyStore(store:)``, routing
    ///   errors, or a store error.
    public func execute(_ request: BatchUpdateRequest) throws(ObjectGraphError) -> BatchResult {
        try execute(request, label: TransactionLabel())
    }

    /// ``execute(_:)-(BatchUpdateRequest)`` recording `label` in the persistent history.
    func execute(_ request: BatchUpdateRequest, label: TransactionLabel) throws(ObjectGraphError) -> BatchResult {
        let entity = try batchEntity(request.entityName)
        let values = try BatchValueConverter(entity: entity).assignments(from: request.propertiesToUpdate)
        let operation = StoreBatchOperation.update(entity: entity, predicate: request.predicate,
            includesSubentities: request.includesSubentities, values: values)
        let stores = try self.stores(forFetching: entity, includesSubentities: request.includesSubentities,
            affectedStores: nil)
        let outcome = try run(label: label, stores.map { ($0, operation) })
        return result(outcome.updated, RemoteContextSave(updated: outcome.updated), request.resultType)
    }

    /// Deletes the matching objects (and whatever their cascade rules reach) straight in the store, in one
    /// transaction, applying their delete rules (see ``BatchDeleteRequest``), and drops the changed rows from
    /// the row cache. When several stores hold the entity, each of them runs the delete (on its own objects)
    /// in its own transaction, one after the other.
    ///
    /// - Throws: ``ObjectGraphError/deleteDenied(objectID:relationship:)``,
    ///   ``ObjectGraphError/batchRequestRefused(entity:reason:)`` (nothing is deleted),
    ///   ``ObjectGraphError/predicate(_:)``, ``ObjectGraphError/readOnlyStore(store:)``, routing errors, or a
    ///   store error.
    public func execute(_ request: BatchDeleteRequest) throws(ObjectGraphError) -> BatchResult {
        try execute(request, label: TransactionLabel())
    }

    /// ``execute(_:)-(BatchDeleteRequest)`` recording `label` in the persistent history.
    func execute(_ request: BatchDeleteRequest, label: TransactionLabel) throws(ObjectGraphError) -> BatchResult {
        if let ids = request.objectIDs, ids.isEmpty {
            return result([], RemoteContextSave(), request.resultType)
        }
        let entity = try batchEntity(request.entityName)
        if let ids = request.objectIDs {
            let family = Set(managedObjectModel.entityAndDescendants(of: managedObjectModel.rootEntity(of: entity)).map(\.name))
            if let stranger = ids.first(where: { !family.contains($0.entityName) || $0.isTemporaryID }) {
                throw .invalidRequest(entity: entity.name,
                    reason: "\(stranger) is not a saved object of \(entity.name)'s hierarchy; delete one entity's objects at a time")
            }
        }
        let stores = try self.stores(forFetching: entity, includesSubentities: request.includesSubentities,
            affectedStores: nil)
        if let ids = request.objectIDs,
            let foreign = ids.first(where: { id in !stores.contains { $0.identifier == id.storeIdentifier } })
        {
            throw .batchRequestRefused(entity: entity.name, reason: "\(foreign) is not in a store that holds \(entity.name)")
        }
        let outcome = try run(label: label, stores.compactMap { store in
            let ids = request.objectIDs?.filter { $0.storeIdentifier == store.identifier }
            if let ids, ids.isEmpty { return nil }
            return (store, .delete(entity: entity, predicate: request.predicate, objectIDs: ids,
                includesSubentities: request.includesSubentities))
        })
        return result(outcome.deleted, RemoteContextSave(updated: outcome.updated, deleted: outcome.deleted),
            request.resultType)
    }

    private func batchEntity(_ name: String) throws(ObjectGraphError) -> EntityDescription {
        guard let entity = managedObjectModel.entity(named: name) else { throw .unknownEntity(name) }
        return entity
    }

    /// Runs each operation in its store, in order (after checking that every store can take it), forgetting
    /// the rows each one changed from the row cache, and returns what they changed together.
    private func run(label: TransactionLabel, _ parts: [(store: PersistentStore, operation: StoreBatchOperation)])
        throws(ObjectGraphError) -> StoreBatchOutcome
    {
        var backends: [any BatchRequestStore] = []
        for (store, _) in parts {
            guard !store.isReadOnly else { throw .readOnlyStore(store: store.displayName) }
            // (The built-in stores are their own incremental stores; a third-party one may offer the capability.)
            guard let backend = store.incrementalStore as? any BatchRequestStore else {
                throw .unsupportedStoreOperation("the store \(store.displayName) cannot run batch requests")
            }
            backends.append(backend)
        }
        var total = StoreBatchOutcome()
        for (backend, part) in zip(backends, parts) {
            let outcome = try backend.execute(part.operation, label: label)
            var changedNames: Set<String> = []
            if case .update(let entity, _, _, let values) = part.operation {
                changedNames = Set(values.map { entity.attributes[$0.attributeIndex].name })
            }
            // (The row cache forgets the changed rows as it takes the event.)
            emit(StoreCommitEvent(storeIdentifier: part.store.identifier, origin: .thisCoordinator, kind: .batchRequest,
                inserted: Set(outcome.inserted),
                updated: Dictionary(outcome.updated.map { ($0, changedNames) }) { first, _ in first },
                deleted: Set(outcome.deleted), author: label.author, contextName: label.contextName,
                historyToken: outcome.transactionNumber.map {
                    HistoryToken(storeIdentifier: part.store.identifier, transactionNumber: $0)
                }))
            total.inserted += outcome.inserted
            total.updated += outcome.updated
            total.deleted += outcome.deleted
        }
        return total
    }

    private func result(_ ids: [ManagedObjectID], _ changes: RemoteContextSave, _ type: BatchResultType) -> BatchResult {
        switch type {
        case .count: BatchResult(count: ids.count, objectIDs: nil, changes: nil)
        case .objectIDs: BatchResult(count: ids.count, objectIDs: ids, changes: changes)
        }
    }
}

/// Turns a batch request's dictionaries into stored values: keys checked against the entity, values against
/// their attribute (and brought to the attribute's own kind, as the store reads them back), defaults filled in.
struct BatchValueConverter {
    let entity: EntityDescription

    /// A full row of values, in attribute order, for a batch insert.
    func row(from dictionary: [String: AttributeValue]) throws(ObjectGraphError) -> [AttributeValue] {
        for key in dictionary.keys where entity.attributeIndex(named: key) == nil { throw unknown(key) }
        var values: [AttributeValue] = []
        values.reserveCapacity(entity.attributes.count)
        for attribute in entity.attributes {
            if attribute.isTransient {
                values.append(.null)
                continue
            }
            values.append(try checked(dictionary[attribute.name] ?? attribute.defaultValue, for: attribute))
        }
        return values
    }

    /// Attribute indices and checked values, for a batch update.
    func assignments(from dictionary: [String: AttributeValue]) throws(ObjectGraphError)
        -> [(attributeIndex: Int, value: AttributeValue)]
    {
        var result: [(attributeIndex: Int, value: AttributeValue)] = []
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            guard let index = entity.attributeIndex(named: key) else { throw unknown(key) }
            let attribute = entity.attributes[index]
            if attribute.isTransient {
                throw .invalidRequest(entity: entity.name, reason: "'\(key)' is transient; the store does not hold it")
            }
            result.append((index, try checked(value, for: attribute)))
        }
        return result
    }

    private func unknown(_ key: String) -> ObjectGraphError {
        let isRelationship = entity.relationship(named: key) != nil
        return .invalidRequest(entity: entity.name, reason: isRelationship
            ? "'\(key)' is a relationship; batch requests set attributes only"
            : "it has no attribute '\(key)' (attributes: " + entity.attributes.map(\.name).joined(separator: ", ") + ")")
    }

    private func checked(_ value: AttributeValue, for attribute: AttributeDescription) throws(ObjectGraphError)
        -> AttributeValue
    {
        guard attribute.accepts(value) else {
            throw .invalidRequest(entity: entity.name,
                reason: "\(value) is not a valid \(attribute.attributeType) value for '\(attribute.name)'")
        }
        if value.isNull && !attribute.isOptional {
            throw .invalidRequest(entity: entity.name, reason: "'\(attribute.name)' is required and has no value")
        }
        switch (attribute.attributeType, value) {
        case (.double, .integer(let number)), (.float, .integer(let number)): return .double(Double(number))
        case (.decimal, .integer(let number)): return .decimal(Decimal(number))
        case (.decimal, .double(let number)): return .decimal(Decimal(string: String(number)) ?? Decimal(number))
        case (.boolean, .integer(let number)): return .boolean(number != 0)
        default: return value
        }
    }
}

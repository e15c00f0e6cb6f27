import Foundation

/// Persistent history for atomic stores: each save and batch request appends one transaction to the store's
/// state inside the same commit, so the file's rewrite carries the rows and their history together.
extension InMemoryStore: PersistentHistoryStore {
    /// Appends the transaction of `changes` (insert, update with changed names, delete with tombstone) to `state`
    /// and returns its number; nil when the store records no history or nothing changed.
    func recordHistory(
        _ changes: [(id: ManagedObjectID, type: PersistentHistoryChange.ChangeType, updated: Set<String>?,
            tombstone: [String: AttributeValue]?)],
        author: String?, contextName: String?, in state: inout State
    ) -> Int64? {
        guard recordsHistory, !changes.isEmpty else { return nil }
        let number = state.nextTransaction
        state.nextTransaction += 1
        let firstChange = (state.history.last?.changes.last?.changeID ?? 0) + 1
        state.history.append(PersistentHistoryTransaction(transactionNumber: number, storeIdentifier: identifier,
            timestamp: Date(), author: author, contextName: contextName, processID: HistoryProcess.processID,
            bundleID: HistoryProcess.bundleID,
            changes: changes.enumerated().map { offset, change in
                PersistentHistoryChange(changeID: firstChange + Int64(offset), changedObjectID: change.id,
                    changeType: change.type, updatedProperties: change.updated, tombstone: change.tombstone)
            }))
        return number
    }

    /// The values a delete of the row `key` of `entity` keeps in its tombstone; nil when it keeps none.
    func tombstone(of entity: EntityDescription, key: Int64, in state: State) -> [String: AttributeValue]? {
        let preserved = SQLiteStore.preservedAttributeIndexes(of: entity)
        guard !preserved.isEmpty, let row = state.rows[model.rootEntity(of: entity).name]?[key] else { return nil }
        return Dictionary(uniqueKeysWithValues: preserved.compactMap { index in
            index < row.values.count ? (entity.attributes[index].name, row.values[index]) : nil
        })
    }

    /// The names of the properties an update changed, from its bit vectors; nil when not known.
    static func changedNames(_ entity: EntityDescription, _ changed: (attributes: IndexBits, relationships: IndexBits)?)
        -> Set<String>?
    {
        guard let changed else { return nil }
        var names: Set<String> = []
        for (index, attribute) in entity.attributes.enumerated() where changed.attributes.contains(index) {
            names.insert(attribute.name)
        }
        for (index, relationship) in entity.relationships.enumerated() where changed.relationships.contains(index) {
            names.insert(relationship.name)
        }
        return names
    }

    func historyTransactions(after transactionNumber: Int64, checkingPurges: Bool) throws(ObjectGraphError)
        -> [PersistentHistoryTransaction]
    {
        let (history, next) = state.withLock { ($0.history, $0.nextTransaction) }
        if checkingPurges {
            // Numbers are handed out without gaps: a gap between the token and the oldest kept one is a purge.
            let oldest = history.first?.transactionNumber ?? next
            if transactionNumber + 1 < oldest {
                throw .historyTokenExpired(store: identifier, transactionNumber: transactionNumber, oldestAvailable: oldest)
            }
        }
        return history.filter { $0.transactionNumber > transactionNumber }
    }

    func historyTransactions(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        state.withLock { $0.history.filter { $0.timestamp > date } }
    }

    func newestHistoryTransactionNumber() throws(ObjectGraphError) -> Int64 {
        state.withLock { $0.nextTransaction - 1 }
    }

    func deleteHistory(through transactionNumber: Int64?, before date: Date?) throws(ObjectGraphError) -> Int {
        guard !isReadOnly else { throw .readOnlyStore(store: displayName) }
        return try commit { state in
            let before = state.history.count
            state.history.removeAll { transaction in
                (transactionNumber.map { transaction.transactionNumber <= $0 } ?? true)
                    && (date.map { transaction.timestamp < $0 } ?? true)
            }
            return .success(before - state.history.count)
        }
    }
}

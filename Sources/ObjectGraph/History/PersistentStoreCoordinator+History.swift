import Foundation

extension PersistentStoreCoordinator {
    /// The stores that record persistent history, with their history capability.
    private func historyStores(_ stores: [PersistentStore]? = nil)
        -> [(store: PersistentStore, backend: any PersistentHistoryStore)]
    {
        (stores ?? persistentStores).compactMap { store in
            guard let backend = store.incrementalStore as? any PersistentHistoryStore, backend.recordsHistory else {
                return nil
            }
            return (store, backend)
        }
    }

    /// The transactions committed after `token` (all kept ones for nil) in every store that records history
    /// (``PersistentStoreOptions/persistentHistoryTracking``), oldest first within each store, each with its
    /// changes: Core Data's `NSPersistentHistoryChangeRequest.fetchHistory(after:)`.
    ///
    /// - Throws: ``ObjectGraphError/historyTokenExpired(store:transactionNumber:oldestAvailable:)`` when history
    ///   after the token was purged, or a store error.
    public func fetchHistory(after token: HistoryToken?) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        var result: [PersistentHistoryTransaction] = []
        for (store, backend) in historyStores() {
            // (No token, or none for this store: everything kept, whatever was purged before.)
            let number = token?.transactionNumbers[store.identifier]
            result += try backend.historyTransactions(after: number ?? 0, checkingPurges: number != nil)
        }
        return result
    }

    /// The transactions committed after `date`, in every store that records history, oldest first within each
    /// store.
    public func fetchHistory(after date: Date) throws(ObjectGraphError) -> [PersistentHistoryTransaction] {
        var result: [PersistentHistoryTransaction] = []
        for (_, backend) in historyStores() { result += try backend.historyTransactions(after: date) }
        return result
    }

    /// Deletes the history up to and including the transactions `token` covers (the token of the last
    /// transaction every reader has processed), in each store it names: Core Data's `deleteHistory(before:)`.
    /// The objects' rows are not touched.
    ///
    /// - Returns: how many transactions were deleted.
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws(ObjectGraphError) -> Int {
        var deleted = 0
        for (store, backend) in historyStores() {
            let number = token.transactionNumber(forStore: store.identifier)
            guard number > 0 else { continue }
            deleted += try backend.deleteHistory(through: number, before: nil)
        }
        return deleted
    }

    /// Deletes the history of transactions committed before `date`, in every store that records history.
    ///
    /// - Returns: how many transactions were deleted.
    @discardableResult
    public func deleteHistory(before date: Date) throws(ObjectGraphError) -> Int {
        var deleted = 0
        for (_, backend) in historyStores() { deleted += try backend.deleteHistory(through: nil, before: date) }
        return deleted
    }

    /// A token covering every transaction committed so far in `stores` (all stores for nil) that record history
    /// (Core Data's `currentPersistentHistoryToken(fromStores:)`); nil when none does.
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) throws(ObjectGraphError)
        -> HistoryToken?
    {
        var numbers: [String: Int64] = [:]
        for (store, backend) in historyStores(stores) {
            numbers[store.identifier] = try backend.newestHistoryTransactionNumber()
        }
        return numbers.isEmpty ? nil : HistoryToken(transactionNumbers: numbers)
    }

    /// Starts the watcher of other writers' commits on a newly added SQLite store (see
    /// ``PersistentStoreOptions/remoteChangeNotifications``).
    func startWatchingForRemoteChanges(_ store: PersistentStore) throws(ObjectGraphError) {
        guard store.options.remoteChangeNotifications else { return }
        let identifier = store.identifier
        let url = store.url
        if let observing = store.incrementalStore as? any RemoteChangeObservingStore {
            try observing.startObservingRemoteChanges { [weak self] commit in
                self?.receiveRemoteCommit(commit, storeIdentifier: identifier, url: url)
            }
            return
        }
        guard let backend = store.backend as? SQLiteStore else { return }
        try backend.startWatchingForRemoteChanges { [weak self] change in
            self?.receiveRemoteChange(change, storeIdentifier: identifier, url: url)
        }
    }

    /// Stops the watcher of a store that leaves the coordinator.
    func stopWatchingForRemoteChanges(_ store: PersistentStore) {
        if let observing = store.incrementalStore as? any RemoteChangeObservingStore {
            observing.stopObservingRemoteChanges()
            return
        }
        guard let backend = store.backend as? SQLiteStore else { return }
        backend.changeWatcher.withLock { watcher in
            watcher?.stop()
            watcher = nil
        }
    }

    /// Sends what another writer committed as commit events (each transaction whole, in commit order), then posts
    /// the remote-change notification. When what changed is not known object by object — a store without history,
    /// a restore, a migration — the row cache is emptied and one event that invalidates all objects is sent.
    private func receiveRemoteChange(_ change: RemoteStoreChange, storeIdentifier: String, url: URL?) {
        guard persistentStores.contains(where: { $0.identifier == storeIdentifier }) else { return }
        if !change.historyKnown || change.replacement != nil { rowCache.withLock { $0.removeAll() } }
        let kind: StoreCommitEvent.Kind?
        switch change.replacement {
        case .migration(let metadata)?:
            migratedElsewhere.withLock { $0[storeIdentifier] = metadata }
            kind = .migration
        case .contents?:
            kind = .contentsReplaced
        case nil:
            kind = change.historyKnown ? nil : .contentsReplaced
        }
        if let kind {
            emit(StoreCommitEvent(storeIdentifier: storeIdentifier, origin: .otherProcess(processID: nil), kind: kind,
                inserted: [], updated: [:], deleted: []))
        }
        for transaction in change.transactions {
            emit(StoreCommitEvent(transaction, origin: transaction.processID == HistoryProcess.processID
                ? .otherCoordinator : .otherProcess(processID: transaction.processID)))
        }
        var userInfo: [String: Any] = [StoreCommitEvent.storeUUIDKey: storeIdentifier]
        if let url { userInfo[StoreCommitEvent.storeURLKey] = url }
        if let newest = change.newestTransactionNumber {
            userInfo[StoreCommitEvent.historyTokenKey] = HistoryToken(storeIdentifier: storeIdentifier, transactionNumber: newest)
        }
        NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: userInfo)
    }
}

extension PersistentStoreCoordinator {
    /// Sends another writer's commit, reported by a ``RemoteChangeObservingStore``, as a commit event, then posts
    /// the remote-change notification.
    private func receiveRemoteCommit(_ commit: RemoteCommit, storeIdentifier: String, url: URL?) {
        guard persistentStores.contains(where: { $0.identifier == storeIdentifier }) else { return }
        if let metadata = commit.migratedMetadata {
            // Another client migrated the store: this coordinator's model no longer describes it.
            rowCache.withLock { $0.removeAll() }
            migratedElsewhere.withLock { $0[storeIdentifier] = metadata }
            emit(StoreCommitEvent(storeIdentifier: storeIdentifier, origin: .otherProcess(processID: commit.processID),
                kind: .migration, inserted: [], updated: [:], deleted: []))
            var userInfo: [String: Any] = [StoreCommitEvent.storeUUIDKey: storeIdentifier]
            if let url { userInfo[StoreCommitEvent.storeURLKey] = url }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: userInfo)
            return
        }
        let token = commit.transactionNumber.map { HistoryToken(storeIdentifier: storeIdentifier, transactionNumber: $0) }
        if commit.replacesContents {
            // Another client restored a backup over the store: what changed is not known object by object.
            rowCache.withLock { $0.removeAll() }
            emit(StoreCommitEvent(storeIdentifier: storeIdentifier, origin: .otherProcess(processID: commit.processID),
                kind: .contentsReplaced, inserted: [], updated: [:], deleted: []))
            var userInfo: [String: Any] = [StoreCommitEvent.storeUUIDKey: storeIdentifier]
            if let url { userInfo[StoreCommitEvent.storeURLKey] = url }
            if let token { userInfo[StoreCommitEvent.historyTokenKey] = token }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: userInfo)
            return
        }
        var inserted = Set(commit.inserted)
        let deleted = Set(commit.deleted)
        let both = inserted.intersection(deleted)
        inserted.subtract(both)
        var updated = commit.updated
        for id in deleted { updated[id] = nil }
        for id in inserted { updated[id] = nil }
        emit(StoreCommitEvent(storeIdentifier: storeIdentifier, origin: .otherProcess(processID: commit.processID),
            kind: .history, inserted: inserted, updated: updated, deleted: deleted.subtracting(both),
            author: commit.author, contextName: commit.contextName, historyToken: token))
        var userInfo: [String: Any] = [StoreCommitEvent.storeUUIDKey: storeIdentifier]
        if let url { userInfo[StoreCommitEvent.storeURLKey] = url }
        if let token { userInfo[StoreCommitEvent.historyTokenKey] = token }
        NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: userInfo)
    }
}

extension StoreCommitEvent {
    /// The commit event of a history transaction read back from a store.
    init(_ transaction: PersistentHistoryTransaction, origin: Origin) {
        var inserted: Set<ManagedObjectID> = []
        var updated: [ManagedObjectID: Set<String>] = [:]
        var deleted: Set<ManagedObjectID> = []
        for change in transaction.changes {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated[change.changedObjectID, default: []].formUnion(change.updatedProperties ?? [])
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        // An object inserted and deleted in one transaction never existed for anyone else.
        let both = inserted.intersection(deleted)
        inserted.subtract(both)
        for id in deleted { updated[id] = nil }
        for id in inserted { updated[id] = nil }
        self.init(storeIdentifier: transaction.storeIdentifier, origin: origin, kind: .history, inserted: inserted,
            updated: updated, deleted: deleted.subtracting(both), author: transaction.author,
            contextName: transaction.contextName, historyToken: transaction.token)
    }
}

extension PersistentStoreCoordinator {
    /// The store's new metadata when another process migrated it to another model version while this coordinator
    /// held it (noticed with ``PersistentStoreOptions/remoteChangeNotifications``); nil otherwise.
    ///
    /// This coordinator's model no longer describes such a store: saves to it are refused with
    /// ``ObjectGraphError/incompatibleModel(path:entities:reason:)``, so that rows written for the old version
    /// never land in the migrated tables. Remove the store and add it again with a model of its new version.
    public func storeMigratedElsewhere(_ store: PersistentStore) -> StoreMetadata? {
        migratedElsewhere.withLock { $0[store.identifier] }
    }

    /// Refuses a save to a store another process migrated underneath this coordinator.
    func checkNotMigratedElsewhere(_ store: PersistentStore) throws(ObjectGraphError) {
        guard let metadata = storeMigratedElsewhere(store) else { return }
        let ours = managedObjectModel.entityVersionHashes
        let differing = Set(ours.keys).union(metadata.entityVersionHashes.keys)
            .filter { ours[$0] != metadata.entityVersionHashes[$0] }.sorted()
        throw .incompatibleModel(path: store.displayName, entities: differing,
            reason: "another process migrated the store to "
                + (metadata.modelVersionName.map { "model version \"\($0)\"" } ?? "another model version")
                + " while it was open; add it again with a model of that version")
    }
}

extension ManagedObjectContext {
    /// Runs a batch insert through this context's coordinator (Core Data's `execute(_:)` with an
    /// `NSBatchInsertRequest`). The context itself does not change: merge the result's changes into the
    /// contexts that should see the new objects (``mergeChanges(fromBatchResult:into:)``).
    public func execute(_ request: BatchInsertRequest) throws(ObjectGraphError) -> BatchResult {
        try batchCoordinator().execute(request, label: TransactionLabel(author: transactionAuthor, contextName: name))
    }

    /// Runs a batch update through this context's coordinator. Registered objects keep their old values
    /// until the result's changes are merged (``mergeChanges(fromBatchResult:into:)``).
    public func execute(_ request: BatchUpdateRequest) throws(ObjectGraphError) -> BatchResult {
        try batchCoordinator().execute(request, label: TransactionLabel(author: transactionAuthor, contextName: name))
    }

    /// Runs a batch delete through this context's coordinator. Registered objects stay until the result's
    /// changes are merged (``mergeChanges(fromBatchResult:into:)``), which turns them into deleted objects.
    public func execute(_ request: BatchDeleteRequest) throws(ObjectGraphError) -> BatchResult {
        try batchCoordinator().execute(request, label: TransactionLabel(author: transactionAuthor, contextName: name))
    }

    /// Brings `contexts` up to date with what a batch request changed, as
    /// ``mergeChanges(fromRemoteContextSave:into:)`` does for a save made elsewhere: registered objects take
    /// the new values or become deleted, and each context posts one objects-did-change, so its
    /// fetched-results controllers report the inserts, updates and deletes. The request must have asked
    /// for ``BatchResultType/objectIDs``; a count-only result merges nothing.
    public static func mergeChanges(fromBatchResult result: BatchResult, into contexts: [ManagedObjectContext]) {
        guard let changes = result.changes else { return }
        mergeChanges(fromRemoteContextSave: changes, into: contexts)
    }

    private func batchCoordinator() throws(ObjectGraphError) -> PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator(context: description) }
        return coordinator
    }
}

import Dispatch
import ObjectGraph

extension PeopleStack {
    /// Saves `context` and carries its changes on towards the store as the stack requires. Call it on the
    /// context's queue, instead of `context.save()`, for every context of the stack (workers, the view
    /// context).
    ///
    /// What has happened when it returns:
    ///
    /// | stack | a worker | the view context |
    /// | --- | --- | --- |
    /// | siblings | on disk (the view context merges it soon) | on disk |
    /// | nested | in the view context; its save to disk is queued on the main queue | on disk |
    /// | writer-main-worker | in the view context; its push into the writer follows on the main queue, the disk write on the writer's queue | checked; in the writer (or queued behind its disk write), the disk write queued |
    ///
    /// A worker waits here for the main queue (its push is applied there); the main queue never waits for a
    /// worker. Use ``flush(_:)`` to learn when everything is on disk, and ``setDeferredSaveFailureHandler(_:)``
    /// to hear about the later saves that fail.
    ///
    /// - Throws: the errors of `context`'s own save (validation, a failed disk write where the context saves
    ///   to disk, …). The context then keeps its changes, as after any failed save.
    public func commit(_ context: ManagedObjectContext) throws(ObjectGraphError) {
        let pipeline = pipeline
        if context === viewContext {
            let result = MainActor.assumeIsolated {
                Result { () throws(ObjectGraphError) in try pipeline.commitViewContext() }
            }
            try result.get()
            return
        }
        try context.save()
        guard kind != .siblings, context.parent === viewContext else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated { pipeline.workerDidPush() }
        }
    }

    /// Calls `completion` on the main queue once everything committed so far has reached the store, with the
    /// failure of a save on the way if one failed. Call it on the main queue.
    @MainActor
    public func flush(_ completion: @escaping @MainActor (DeferredSaveFailure?) -> Void) {
        pipeline.flush(completion)
    }

    /// Waits until everything committed so far has reached the store; returns the failure of a save on the
    /// way, if one failed.
    @MainActor
    public func flush() async -> DeferredSaveFailure? {
        await withCheckedContinuation { continuation in
            pipeline.flush { failure in continuation.resume(returning: failure) }
        }
    }

    /// Sets who hears (on the main queue) about saves that fail after ``commit(_:)`` returned: the view
    /// context's disk save in a nested stack, its push into the writer and the writer's disk write in a
    /// writer-main-worker stack. Failures from before the handler was set are delivered at once.
    @MainActor
    public func setDeferredSaveFailureHandler(_ handler: @escaping @MainActor (DeferredSaveFailure) -> Void) {
        pipeline.setFailureHandler(handler)
    }
}

import Dispatch
import ObjectGraph

/// A save that happened after ``PeopleStack/commit(_:)`` returned — the view context's save to disk in a
/// nested stack, its push into the writer or the writer's disk write in a writer-main-worker stack — and
/// failed. The changes stay in the context that could not save them and go again with the next save.
public struct DeferredSaveFailure: Error, Sendable, CustomStringConvertible {
    /// Which save failed.
    public enum Stage: Sendable, Hashable {
        /// The view context's save to the store (nested stack).
        case viewContextToStore
        /// The view context's push into the writer (writer-main-worker stack).
        case viewContextToWriter
        /// The writer's save to the store (writer-main-worker stack).
        case writerToStore
    }

    /// Which save failed.
    public var stage: Stage
    /// Why.
    public var error: ObjectGraphError

    public var description: String {
        switch stage {
        case .viewContextToStore: "Could not save to the store: \(error)"
        case .viewContextToWriter: "Could not pass changes to the writer context: \(error)"
        case .writerToStore: "The writer could not save to the store: \(error)"
        }
    }
}

/// Carries saves down a ``PeopleStack`` after a commit: the main-queue half of the stack's save chain.
///
/// Everything here runs on the main queue, and nothing here waits for a worker. The steps:
///
/// - **siblings**: nothing to do (workers save to disk; the view context merges their saves).
/// - **nested**: after a worker's push lands, the view context saves to disk at the next turn of the main
///   queue. Pushes that land before that turn go in the same save.
/// - **writer-main-worker**: after a push, the view context pushes into the writer, and the writer saves to
///   disk on its own queue. While the writer writes, the view context does not push (a push waits for the
///   writer's queue): pushes gather in the view context and go together once the writer is done, so the
///   main thread never waits for a disk write. A commit of the view context itself (the user's edit) is
///   validated at once and pushed the same way.
///
/// Failures of these later saves go to the failure handler (the browser's status line, the import
/// command's standard error); a failed save keeps its changes, which go again with the next save.
@MainActor
final class CommitPipeline {
    private let kind: PeopleStack.Kind
    private let viewContext: ManagedObjectContext
    private let writer: ManagedObjectContext?
    /// Whether a writer save is queued or running (until its completion has run on the main queue).
    private var writerIsSaving = false
    /// Waiting for everything to reach the store.
    private var flushWaiters: [(DeferredSaveFailure?) -> Void] = []
    /// The first failure since the waiters started waiting.
    private var failureSinceFlush: DeferredSaveFailure?
    /// Told about each failed deferred save.
    private var failureHandler: ((DeferredSaveFailure) -> Void)?
    /// Failures that happened while no handler was set; delivered when one is.
    private var undelivered: [DeferredSaveFailure] = []

    nonisolated init(kind: PeopleStack.Kind, viewContext: ManagedObjectContext, writer: ManagedObjectContext?) {
        self.kind = kind
        self.viewContext = viewContext
        self.writer = writer
    }

    // MARK: - Entry points

    /// Saves the view context (the caller is on the main queue) and starts carrying its changes down.
    /// Errors of the view context's own save (validation, a failed disk write in the stacks where the view
    /// context is on the coordinator) are thrown; later failures go to the failure handler.
    func commitViewContext() throws(ObjectGraphError) {
        switch kind {
        case .siblings, .nested:
            try viewContext.save()
        case .writerMainWorker:
            if writerIsSaving {
                // The push would wait for the writer's disk write: check now, push when the writer is done.
                try viewContext.validatePendingChanges()
            } else {
                try viewContext.save()
                saveWriter()
            }
        }
    }

    /// A worker pushed changes into the view context (called on the main queue after the push).
    func workerDidPush() {
        switch kind {
        case .siblings: break
        case .nested: saveViewContextToStore()
        case .writerMainWorker: if !writerIsSaving { pushViewContext() }
        }
    }

    /// Calls `completion` on the main queue once everything committed so far is on disk (or a save on
    /// the way failed, which it is given). Starts the saves that are still due.
    func flush(_ completion: @escaping (DeferredSaveFailure?) -> Void) {
        switch kind {
        case .siblings:
            completion(nil)
        case .nested:
            flushWaiters.append(completion)
            saveViewContextToStore()
        case .writerMainWorker:
            flushWaiters.append(completion)
            guard !writerIsSaving else { return }  // the writer's completion carries on
            if viewContext.hasChanges { pushViewContext() } else { saveWriter() }
        }
    }

    /// Sets who hears about failed deferred saves; failures that happened before are delivered at once.
    func setFailureHandler(_ handler: @escaping (DeferredSaveFailure) -> Void) {
        failureHandler = handler
        let pending = undelivered
        undelivered = []
        for failure in pending { handler(failure) }
    }

    // MARK: - Steps

    /// Nested: the view context saves to disk, on the main queue.
    private func saveViewContextToStore() {
        if viewContext.hasChanges {
            do {
                try viewContext.save()
            } catch {
                report(DeferredSaveFailure(stage: .viewContextToStore, error: error))
            }
        }
        resolveWaiters()
    }

    /// Writer-main-worker: the view context pushes into the idle writer, which then saves to disk.
    private func pushViewContext() {
        guard viewContext.hasChanges else {
            resolveWaiters()
            return
        }
        do {
            try viewContext.save()
        } catch {
            report(DeferredSaveFailure(stage: .viewContextToWriter, error: error))
            resolveWaiters()
            return
        }
        saveWriter()
    }

    /// Writer-main-worker: the writer saves to disk on its queue; the main queue hears when it is done.
    private func saveWriter() {
        guard let writer else { return }
        writerIsSaving = true
        writer.perform { [self] in
            let failure: ObjectGraphError?
            do throws(ObjectGraphError) {
                try writer.save()
                failure = nil
            } catch {
                failure = error
            }
            DispatchQueue.main.async { [failure] in
                MainActor.assumeIsolated { self.writerDidSave(failure) }
            }
        }
    }

    private func writerDidSave(_ error: ObjectGraphError?) {
        writerIsSaving = false
        if let error { report(DeferredSaveFailure(stage: .writerToStore, error: error)) }
        // Pushes that landed while the writer wrote go now, as one.
        if viewContext.hasChanges, error == nil {
            pushViewContext()
        } else {
            resolveWaiters()
        }
    }

    // MARK: - Reporting

    private func report(_ failure: DeferredSaveFailure) {
        if !flushWaiters.isEmpty, failureSinceFlush == nil { failureSinceFlush = failure }
        if let failureHandler {
            failureHandler(failure)
        } else {
            undelivered.append(failure)
        }
    }

    /// Tells the flush waiters, once nothing is on its way to disk any more.
    private func resolveWaiters() {
        guard !flushWaiters.isEmpty, !writerIsSaving else { return }
        let waiters = flushWaiters
        let failure = failureSinceFlush
        flushWaiters = []
        failureSinceFlush = nil
        for waiter in waiters { waiter(failure) }
    }
}

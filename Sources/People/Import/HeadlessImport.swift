import Dispatch
import Foundation
import ObjectGraph
import TerminalTableView

/// An import without the browser (`people import`): one importer on the stack, then a flush, so that
/// everything is on disk when ``start(onProgress:onDeferredFailure:completion:)`` completes.
///
/// The main queue must keep running meanwhile (the command calls `dispatchMain()`): in the nested stacks
/// every batch is pushed into the view context on it. With `measuresStall`, the browser's list controller
/// (a fetched-results controller on the view context, and its table, without drawing) follows the import
/// as in the browser, and a ``MainQueueStallMeter`` measures how late 60 Hz heartbeats on the main queue
/// run — the main thread's stall under each stack.
@MainActor
public final class HeadlessImport {
    /// How the import ended.
    public struct Outcome: Sendable {
        /// The importer's last progress.
        public var progress: PersonImporter.Progress
        /// Saves that failed after their commit (also passed to `onDeferredFailure` as they happened).
        public var deferredFailures: [DeferredSaveFailure]
        /// From the start until everything was on disk.
        public var elapsed: Duration
        /// The main queue's heartbeats, when measured.
        public var stall: MainQueueStallMeter.Report?
        /// How many people the view context's list showed at the end (when measured).
        public var listedPeople: Int?

        /// Whether the command should exit with a failure: a failed import or save, or skipped rows.
        public var failed: Bool { progress.failure != nil || progress.skipped > 0 || !deferredFailures.isEmpty }

        /// People saved per second, start to disk.
        public var peoplePerSecond: Double {
            elapsed > .zero ? Double(progress.saved) / elapsed.seconds : 0
        }
    }

    /// The stack imported into.
    public let stack: PeopleStack
    /// The import.
    public let importer: PersonImporter
    private let meter: MainQueueStallMeter?
    private var list: PeopleListViewController?
    private var failures: [DeferredSaveFailure] = []

    /// Prepares an import of `source` into `stack` in batches of `batchSize`.
    public init(stack: PeopleStack, source: PersonImporter.Source, batchSize: Int, measuresStall: Bool = false) {
        self.stack = stack
        importer = PersonImporter(stack: stack, source: source, batchSize: batchSize)
        meter = measuresStall ? MainQueueStallMeter() : nil
    }

    /// Starts the import. `onProgress` is called on the import's queue after each batch; `onDeferredFailure`
    /// and `completion` on the main queue.
    ///
    /// - Throws: the list's first fetch, when the stall is measured.
    public func start(
        onProgress: @escaping @Sendable (PersonImporter.Progress) -> Void = { _ in },
        onDeferredFailure: @escaping @MainActor (DeferredSaveFailure) -> Void = { _ in },
        completion: @escaping @MainActor (Outcome) -> Void
    ) throws(ObjectGraphError) {
        stack.setDeferredSaveFailureHandler { [weak self] failure in
            self?.failures.append(failure)
            onDeferredFailure(failure)
        }
        if meter != nil {
            let list = PeopleListViewController(context: stack.viewContext, timeSource: SystemTimeSource())
            try list.start()
            self.list = list
        } else if stack.kind == .siblings {
            // Nothing shows the view context here: in the siblings stack, where the importer saves to the store
            // directly, merging each batch into it would only make objects no one reads (a fifth of a million-row
            // import). In the nested stacks the view context carries the batches, and merges as ever.
            stack.viewContext.automaticallyMergesChangesFromParent = false
        }
        let started = ContinuousClock.now
        meter?.start()
        importer.start(onBatch: onProgress)
        importer.whenStopped { [self] in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.stack.flush { failure in
                        // A failure on the way was also reported to the handler: it is in `failures`.
                        _ = failure
                        let elapsed = ContinuousClock.now - started
                        completion(Outcome(
                            progress: self.importer.progress, deferredFailures: self.failures, elapsed: elapsed,
                            stall: self.meter?.stop(), listedPeople: self.list?.numberOfPeople))
                    }
                }
            }
        }
    }

    /// ``start(onProgress:onDeferredFailure:completion:)`` for async callers.
    public func run(onProgress: @escaping @Sendable (PersonImporter.Progress) -> Void = { _ in }) async throws(ObjectGraphError)
        -> Outcome
    {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Outcome, ObjectGraphError>, Never>) in
            do throws(ObjectGraphError) {
                try start(onProgress: onProgress) { outcome in continuation.resume(returning: .success(outcome)) }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }
}

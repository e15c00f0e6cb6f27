import Foundation
import ObjectGraph
import Synchronization

/// Imports generated people in a background context, saving every batch, so that each save merges into
/// the view context and the list grows live — the seeds' "background import operation that saves every
/// N records".
public final class PersonImporter: Sendable {
    /// Where an import stands.
    public struct Progress: Sendable, Equatable {
        /// People saved so far.
        public var saved: Int
        /// People to import in all.
        public var total: Int
        /// Whether the import finished (or stopped on an error).
        public var isFinished: Bool
        /// Why it stopped early, if it did.
        public var failure: String?

        /// Completion from 0 to 100.
        public var percent: Int { total == 0 ? 100 : saved * 100 / total }
    }

    private let context: ManagedObjectContext
    private let state: Mutex<(progress: Progress, cancelled: Bool)>

    /// Prepares an import of `count` people in batches of `batchSize`.
    ///
    /// - Parameter firstSerial: the serial number of the first generated person, which keeps generated
    ///   e-mail addresses distinct from earlier imports into the same store.
    public init(stack: PeopleStack, count: Int, batchSize: Int, seed: UInt64, firstSerial: Int = 1) {
        context = stack.newBackgroundContext(name: "import")
        self.count = max(0, count)
        self.batchSize = max(1, batchSize)
        self.seed = seed
        self.firstSerial = firstSerial
        state = Mutex((Progress(saved: 0, total: max(0, count), isFinished: count <= 0), false))
    }

    /// How many people this import adds.
    public let count: Int
    /// How many people each save holds.
    public let batchSize: Int
    private let seed: UInt64
    private let firstSerial: Int

    /// The current progress; safe from any queue.
    public var progress: Progress { state.withLock { $0.progress } }

    /// Asks the import to stop after the batch in progress.
    public func cancel() { state.withLock { $0.cancelled = true } }

    /// Blocks until the import's queue is idle: after ``cancel()``, until the batch in progress is saved.
    public func waitUntilStopped() {
        context.performAndWait {}
    }

    /// Starts importing on a new background context; `onBatch` is called (on that context's queue) after
    /// every saved batch and once at the end.
    public func start(onBatch: @escaping @Sendable (Progress) -> Void = { _ in }) {
        let context = context
        let count = count
        let batchSize = batchSize
        let seed = seed
        let firstSerial = firstSerial
        context.perform { [self] in
            var generator = PersonGenerator(seed: seed, firstSerial: firstSerial)
            var done = 0
            while done < count, !state.withLock({ $0.cancelled }) {
                let size = min(batchSize, count - done)
                for record in generator.make(size) {
                    Person(context: context).update(from: record)
                }
                do {
                    try context.save()
                } catch {
                    let progress = state.withLock { state -> Progress in
                        state.progress.isFinished = true
                        state.progress.failure = "\(error)"
                        return state.progress
                    }
                    onBatch(progress)
                    return
                }
                // Saved objects are not needed here any more; keep the import's memory flat.
                context.reset()
                done += size
                let progress = state.withLock { state -> Progress in
                    state.progress.saved = done
                    return state.progress
                }
                onBatch(progress)
            }
            let progress = state.withLock { state -> Progress in
                state.progress.isFinished = true
                return state.progress
            }
            onBatch(progress)
        }
    }
}

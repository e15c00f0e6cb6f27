import Foundation
import ObjectGraph

/// Imports people in a background context, saving every batch, so that each save merges into the view
/// context and the list grows live — the seeds' "background import operation that saves every N
/// records".
///
/// People come from the generator (``Source/generated(count:seed:firstSerial:)``) or from a JSON or CSV
/// file in the formats `objectgraph import` reads (``Source/file(_:)``), read as it is imported. A file row that cannot be
/// stored — an unknown key, a value of the wrong kind, one that fails the model's validation — is
/// skipped and reported in ``Progress/problems``; the rest are imported. A save that fails stops the
/// import (its batch is not written).
///
/// Each batch is committed through the stack (``PeopleStack/commit(_:)``): saved to disk in a siblings stack,
/// pushed into the view context in the others. Several importers may run at once: each has its own worker
/// context, and the store takes one save at a time.
///
/// It is `@unchecked Sendable`: its only mutable state (progress and the cancel flag) is read and written
/// under `lock` (an `NSLock`, which ThreadSanitizer can see, unlike `Synchronization.Mutex` on Linux).
public final class PersonImporter: @unchecked Sendable {
    /// Where the people come from.
    public enum Source: Sendable, Hashable {
        /// `count` generated people; emails are numbered from `firstSerial`.
        case generated(count: Int, seed: UInt64, firstSerial: Int)
        /// The rows of a JSON, JSON Lines or CSV file.
        case file(URL)
    }

    /// Where an import stands.
    public struct Progress: Sendable, Equatable {
        /// People saved so far.
        public var saved: Int
        /// People to import in all (for a file, 0 until its first batch, then estimated from the bytes read
        /// until its end is reached).
        public var total: Int
        /// Rows skipped because they could not be stored.
        public var skipped = 0
        /// The first few skipped rows and why, for example `row 3: 'age': expected a whole number`.
        public var problems: [String] = []
        /// Whether the import is still reading its file.
        public var isReading = false
        /// Whether the import finished (or stopped on an error).
        public var isFinished: Bool
        /// Why it stopped early, if it did.
        public var failure: String?

        /// Completion from 0 to 100, counting skipped rows as done.
        public var percent: Int { total == 0 ? (isFinished ? 100 : 0) : min(100, (saved + skipped) * 100 / total) }
    }

    /// How many problems ``Progress/problems`` keeps.
    public static let keptProblems = 5

    /// Where the people come from.
    public let source: Source
    /// How many people each save holds.
    public let batchSize: Int
    private let stack: PeopleStack
    private let context: ManagedObjectContext
    private let entity: EntityDescription?
    private let lock = NSLock()
    private var state: (progress: Progress, cancelled: Bool)

    /// Prepares an import from `source` in batches of `batchSize`.
    public init(stack: PeopleStack, source: Source, batchSize: Int) {
        self.source = source
        self.batchSize = max(1, batchSize)
        self.stack = stack
        context = stack.newWorkerContext(name: "import")
        entity = stack.coordinator.managedObjectModel.entity(named: PeopleModel.entityName)
        let initial: Progress
        switch source {
        case .generated(let count, _, _):
            initial = Progress(saved: 0, total: max(0, count), isFinished: count <= 0)
        case .file:
            initial = Progress(saved: 0, total: 0, isReading: true, isFinished: false)
        }
        state = (initial, false)
    }

    /// Prepares an import of `count` generated people in batches of `batchSize`.
    ///
    /// - Parameter firstSerial: the serial number of the first generated person, which keeps generated
    ///   e-mail addresses distinct from earlier imports into the same store.
    public convenience init(stack: PeopleStack, count: Int, batchSize: Int, seed: UInt64, firstSerial: Int = 1) {
        self.init(stack: stack, source: .generated(count: count, seed: seed, firstSerial: firstSerial),
            batchSize: batchSize)
    }

    /// A short name for the status line: `10,000 generated` or the file's name.
    public var name: String {
        switch source {
        case .generated(let count, _, _): "\(NumberText.grouped(count)) generated"
        case .file(let url): url.lastPathComponent
        }
    }

    /// The current progress; safe from any queue.
    public var progress: Progress { lock.withLock { state.progress } }

    /// Asks the import to stop after the batch in progress.
    public func cancel() { lock.withLock { state.cancelled = true } }

    /// Calls `body` on the import's queue once the import has stopped (finished, failed, or after
    /// ``cancel()`` the batch in progress was committed); at once if it never started.
    ///
    /// Never block the main thread waiting for an import: in the nested stacks a batch's commit waits for
    /// the main queue.
    public func whenStopped(_ body: @escaping @Sendable () -> Void) {
        context.perform(body)
    }

    /// Waits until the import has stopped (see ``whenStopped(_:)``), leaving the main queue free.
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in whenStopped { continuation.resume() } }
    }

    /// Starts importing on the importer's background context; `onBatch` is called (on that context's
    /// queue) after every saved batch and once at the end.
    public func start(onBatch: @escaping @Sendable (Progress) -> Void = { _ in }) {
        context.perform { [self] in
            switch source {
            case .generated(let count, let seed, let firstSerial):
                var generator = PersonGenerator(seed: seed, firstSerial: firstSerial)
                run(total: count, onBatch: onBatch) { size, context in
                    let records = generator.make(size)
                    let people = records.map { record in
                        let person = Person(context: context)
                        person.update(from: record)
                        return person
                    }
                    GeneratedAvatars.attach(people, records: records)
                    do {
                        try GeneratedAffiliations.attach(people, records: records, in: context)
                        return []
                    } catch {
                        return ["companies and tags could not be attached: \(error)"]
                    }
                }
            case .file(let url):
                importFile(url, onBatch: onBatch)
            }
        }
    }

    // MARK: - Running

    /// Imports the rows of a file as it is read: each batch is committed before the next is read, so the
    /// first people appear while the rest of the file is unread and memory holds one batch. The total is
    /// estimated from the bytes read until the end is reached.
    private func importFile(_ url: URL, onBatch: @Sendable (Progress) -> Void) {
        let reader: ImportFileReader
        do {
            reader = try ImportFileReader(contentsOf: url)
        } catch {
            onBatch(update { $0.isReading = false; $0.isFinished = true; $0.failure = "\(url.path): \(error.message)" })
            return
        }
        guard let entity else {
            onBatch(update { $0.isReading = false; $0.isFinished = true; $0.failure = "the model has no Person" })
            return
        }
        let converter = PersonRowConverter(entity: entity)
        var done = 0
        var batch: [ImportRow] = []
        batch.reserveCapacity(batchSize)
        while !lock.withLock({ state.cancelled }) {
            batch.removeAll(keepingCapacity: true)
            var readFailure: String?
            do {
                while batch.count < batchSize, let row = try reader.next() { batch.append(row) }
            } catch {
                readFailure = "\(url.path): \(error)"
            }
            var problems: [String] = []
            for row in batch {
                if let problem = Self.insert(row, converter: converter, into: context) {
                    problems.append("row \(row.index): \(problem)")
                }
            }
            if !batch.isEmpty {
                do {
                    try stack.commit(context)
                } catch {
                    context.rollback()
                    onBatch(update { $0.isReading = false; $0.isFinished = true; $0.failure = "\(error)" })
                    return
                }
                // Saved objects are not needed here any more; keep the import's memory flat.
                context.reset()
            }
            done += batch.count
            let saved = batch.count - problems.count
            let atEnd = batch.count < batchSize || readFailure != nil
            let estimate = Self.estimatedTotal(done: done, consumed: reader.bytesConsumed, size: reader.fileSize)
            onBatch(update { progress in
                progress.isReading = false
                progress.saved += saved
                progress.skipped += problems.count
                progress.total = atEnd ? done : estimate
                let room = max(0, Self.keptProblems - progress.problems.count)
                progress.problems.append(contentsOf: problems.prefix(room))
                if let readFailure {
                    progress.isFinished = true
                    progress.failure = readFailure
                }
            })
            if readFailure != nil { return }
            if atEnd { break }
        }
        onBatch(update { $0.isFinished = true })
    }

    /// The rows a file holds, estimated from `done` rows in the first `consumed` of its `size` bytes (at
    /// least one more than done while it is being read).
    static func estimatedTotal(done: Int, consumed: Int, size: Int?) -> Int {
        guard let size, consumed > 0, size > consumed else { return done + 1 }
        return max(done + 1, Int((Double(done) * Double(size) / Double(consumed)).rounded()))
    }

    /// Inserts one file row as a new person, or returns why it cannot be stored (inserting nothing).
    private static func insert(_ row: ImportRow, converter: PersonRowConverter, into context: ManagedObjectContext)
        -> String?
    {
        let values: [(key: String, value: AttributeValue)]
        do {
            values = try converter.values(of: row.fields.get())
        } catch let problem as PersonRowConverter.Problem {
            return problem.description
        } catch {
            return "\(error)"
        }
        let person = Person(context: context)
        for (key, value) in values {
            do {
                try person.validateValue(value, forKey: key)
            } catch {
                context.delete(person)
                return "'\(key)': \(error.reason)"
            }
            person.setValue(value, forKey: key)
        }
        return nil
    }

    /// Saves batches until `total` rows are done or the import is cancelled. `fill` inserts the next
    /// `size` rows into the context and returns the problems of rows it skipped.
    private func run(
        total: Int, onBatch: @Sendable (Progress) -> Void,
        fill: (_ size: Int, _ context: ManagedObjectContext) -> [String]
    ) {
        var done = 0
        while done < total, !lock.withLock({ state.cancelled }) {
            let size = min(batchSize, total - done)
            let problems = fill(size, context)
            do {
                try stack.commit(context)
            } catch {
                context.rollback()
                onBatch(update { $0.isFinished = true; $0.failure = "\(error)" })
                return
            }
            // Saved objects are not needed here any more; keep the import's memory flat.
            context.reset()
            done += size
            let saved = size - problems.count
            onBatch(update { progress in
                progress.saved += saved
                progress.skipped += problems.count
                let room = max(0, Self.keptProblems - progress.problems.count)
                progress.problems.append(contentsOf: problems.prefix(room))
            })
        }
        onBatch(update { $0.isFinished = true })
    }

    private func update(_ change: (inout Progress) -> Void) -> Progress {
        lock.withLock {
            change(&state.progress)
            return state.progress
        }
    }
}

import Dispatch
import Foundation
import ObjectGraph

/// The three Core Data stacks of the People app (`Sources/People/Stack/PeopleStack*.swift`), rebuilt with the public
/// API: a main-queue view context, private-queue workers, and — for the nested stacks — the app's commit
/// pipeline (a worker's push is carried on to disk from the main queue without the main queue ever waiting
/// for a disk write in writer-main-worker).
///
/// Use it from a thread other than the main thread while the main queue runs (``MainQueue/run(_:)``).
public final class BenchStack: @unchecked Sendable {
    /// How the contexts are wired.
    public enum Kind: String, CaseIterable, Sendable {
        /// View and workers side by side on the coordinator; workers save to disk, the view merges.
        case siblings
        /// Workers are children of the view context, which saves to disk on the main queue.
        case nested
        /// A private writer saves to disk; the view is its child; workers are the view's children.
        case writerMainWorker = "writer-main-worker"
    }

    public let kind: Kind
    public let coordinator: PersistentStoreCoordinator
    public let viewContext: ManagedObjectContext
    public let writer: ManagedObjectContext?
    // Main-queue state of the commit pipeline.
    private var writerIsSaving = false
    private var waiters: [DispatchSemaphore] = []

    /// Opens `file` with a stack of `kind`. `merging` turns on the view context's automatic merging of
    /// sibling saves (siblings only; the nested stacks receive pushes anyway).
    public init(file: StoreFile, kind: Kind, merging: Bool) throws {
        self.kind = kind
        coordinator = try file.coordinator()
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "view"
        switch kind {
        case .siblings, .nested:
            writer = nil
            viewContext.persistentStoreCoordinator = coordinator
            viewContext.automaticallyMergesChangesFromParent = merging
        case .writerMainWorker:
            let writer = ManagedObjectContext(concurrencyType: .privateQueue)
            writer.name = "writer"
            writer.persistentStoreCoordinator = coordinator
            self.writer = writer
            viewContext.parent = writer
        }
    }

    /// A new private-queue worker, placed as the stack places import contexts.
    public func newWorker(name: String = "import") -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = name
        switch kind {
        case .siblings: context.persistentStoreCoordinator = coordinator
        case .nested, .writerMainWorker: context.parent = viewContext
        }
        return context
    }

    /// Saves a worker (on its queue) and starts carrying the changes on to disk.
    public func commit(_ worker: ManagedObjectContext) throws {
        try worker.save()
        guard kind != .siblings else { return }
        DispatchQueue.main.async { self.step() }
    }

    /// Blocks the calling (non-main) thread until everything committed is on disk.
    public func flush() {
        guard kind != .siblings else { return }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            self.waiters.append(done)
            self.step()
        }
        done.wait()
    }

    /// Main queue: carries pending pushes on (nested: the view saves to disk; writer-main-worker: the view
    /// pushes into an idle writer, which saves to disk on its own queue).
    private func step() {
        switch kind {
        case .siblings: break
        case .nested:
            if viewContext.hasChanges { save(viewContext) }
        case .writerMainWorker:
            guard !writerIsSaving, let writer else { return }
            if viewContext.hasChanges { save(viewContext) }
            if writer.hasChanges {
                writerIsSaving = true
                writer.perform {
                    self.save(writer)
                    DispatchQueue.main.async {
                        self.writerIsSaving = false
                        self.step()
                    }
                }
                return
            }
        }
        guard !writerIsSaving, !viewContext.hasChanges else { return }
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.signal() }
    }

    private func save(_ context: ManagedObjectContext) {
        do {
            try context.save()
        } catch {
            FileHandle.standardError.write(Data("benchmark: \(context.name ?? "?") save failed: \(error)\n".utf8))
            exit(2)
        }
    }
}

/// Runs the benchmark driver on its own thread while the main thread runs the main queue (as an app's run
/// loop would), then exits with the driver's status.
public enum MainQueue {
    public static func run(_ driver: @escaping @Sendable () -> Int32) -> Never {
        let thread = Thread {
            let status = driver()
            DispatchQueue.main.async { exit(status) }
        }
        thread.stackSize = 8 << 20
        thread.start()
        dispatchMain()
    }

    /// Runs `body` on the main queue and waits for it (from the driver thread); on the main thread (a
    /// profile run without a running main queue) it runs `body` directly.
    public static func sync<T>(_ body: () throws -> T) rethrows -> T {
        if Thread.isMainThread { return try body() }
        return try DispatchQueue.main.sync(execute: body)
    }
}

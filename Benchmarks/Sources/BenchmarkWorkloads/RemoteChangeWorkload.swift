import Foundation
import ObjectGraph

/// Workload 8 (issue 31): changes from other processes. What persistent history costs an import, how long
/// another process's commit takes to reach this process's remote-change event and a controller's `didChange`,
/// and what an idle watching process costs.
public enum RemoteChangeWorkload {
    /// Store options: history on or off; the watcher when `watching`.
    static func options(history: Bool, watching: Bool = false) -> PersistentStoreOptions {
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = history
        options.remoteChangeNotifications = watching
        return options
    }

    /// A coordinator on `path` with the person model.
    static func coordinator(path: String, history: Bool, watching: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PersonModel.make(index: .name))
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: URL(fileURLWithPath: path),
            options: options(history: history, watching: watching))
        return coordinator
    }

    /// Imports `rows` into an empty store through one private context, saving every `batchSize` (history on or
    /// off). Seconds.
    public static func importSeconds(into file: StoreFile, rows: [PersonRow], batchSize: Int, history: Bool) throws
        -> Double
    {
        let coordinator = try coordinator(path: file.path, history: history)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "bench"
        return try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try context.performAndWait {
                    for row in rows[start..<end] {
                        PersonModel.fill(try context.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                    }
                    try context.save()
                    context.reset()
                }
                start = end
            }
        }
    }

    /// The writer in the child process: `count` transactions of `size` people each, `gap` milliseconds apart,
    /// printing `t=<seconds since 1970>` as each commit returns.
    public static func writeCommits(path: String, count: Int, size: Int, gapMilliseconds: Int) throws {
        let coordinator = try coordinator(path: path, history: true)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "remote-writer"
        var generator = PersonGenerator(seed: 7)
        for _ in 0..<count {
            let rows = generator.people(size)
            try context.performAndWait {
                for row in rows {
                    PersonModel.fill(try context.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                }
                try context.save()
                context.reset()
            }
            FileHandle.standardOutput.write(Data("t=\(Date().timeIntervalSince1970)\n".utf8))
            Thread.sleep(forTimeInterval: Double(gapMilliseconds) / 1000)
        }
    }

    /// Latencies, in seconds, from each commit of another process to this process's commit event (the
    /// remote-change notification) and to the `didChange` of a controller on a main-queue context that merges
    /// automatically. The other process is `child` (this executable in its writer mode). Call it off the main
    /// thread with the main queue running.
    public static func latencies(file: StoreFile, commits: Int, child: (executable: URL, arguments: [String])) throws
        -> (notification: [Double], didChange: [Double])
    {
        let coordinator = try coordinator(path: file.path, history: true, watching: true)
        let arrivals = ArrivalLog()
        let token = coordinator.addCommitObserver { event in
            if event.origin.isRemote { arrivals.note(\.notifications) }
        }
        defer { token.cancel() }
        let delegate = TimingDelegate(log: arrivals)
        let controller = try mergingListController(on: coordinator, delegate: delegate)
        let process = Process()
        process.executableURL = child.executable
        process.arguments = child.arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RawSQLiteError(description: "the writer process failed: \(String(decoding: output, as: UTF8.self))")
        }
        let committed = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.hasPrefix("t=") ? Double(line.dropFirst(2)) : nil
        }
        // Wait (10 s at most) for the last merge to reach the controller.
        let deadline = Date().addingTimeInterval(10)
        while arrivals.count(\.didChanges) < committed.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        _ = MainQueue.sync { controller.numberOfFetchedObjects }
        let notifications = arrivals.times(\.notifications)
        let changes = arrivals.times(\.didChanges)
        guard notifications.count == committed.count, changes.count == committed.count else {
            throw RawSQLiteError(description: "\(committed.count) commits, \(notifications.count) events, "
                + "\(changes.count) didChange")
        }
        return (zip(notifications, committed).map { $0 - $1 }, zip(changes, committed).map { $0 - $1 })
    }

    /// The CPU a process spends over `seconds` while it only watches a store (the watcher, a main-queue context
    /// and a controller, the main queue running), as a percentage of one core.
    public static func idleCPUPercent(file: StoreFile, seconds: Double) throws -> Double {
        let coordinator = try coordinator(path: file.path, history: true, watching: true)
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        let controller: FetchedResultsController<ManagedObject> = try MainQueue.sync {
            view.persistentStoreCoordinator = coordinator
            view.automaticallyMergesChangesFromParent = true
            let controller = FetchedResultsController(fetchRequest: PersonModel.listRequest(), managedObjectContext: view)
            try controller.performFetch()
            return controller
        }
        let before = processCPUSeconds()
        Thread.sleep(forTimeInterval: seconds)
        let used = processCPUSeconds() - before
        _ = MainQueue.sync { controller.numberOfFetchedObjects }
        return used / seconds * 100
    }

    /// User plus system CPU time of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Arrival times, noted from any thread.
final class ArrivalLog: @unchecked Sendable {
    struct Times {
        var notifications: [Double] = []
        var didChanges: [Double] = []
    }
    private let lock = NSLock()
    private var times = Times()

    func note(_ list: WritableKeyPath<Times, [Double]>) {
        let now = Date().timeIntervalSince1970
        lock.lock()
        times[keyPath: list].append(now)
        lock.unlock()
    }

    func count(_ list: KeyPath<Times, [Double]>) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return times[keyPath: list].count
    }

    func times(_ list: KeyPath<Times, [Double]>) -> [Double] {
        lock.lock()
        defer { lock.unlock() }
        return times[keyPath: list]
    }
}

extension RemoteChangeWorkload {
    /// A controller of the people list (50 per batch) on a new main-queue context of `coordinator` that merges
    /// automatically, fetched, telling `delegate`. Call it off the main thread with the main queue running.
    static func mergingListController(on coordinator: PersistentStoreCoordinator, delegate: TimingDelegate) throws
        -> FetchedResultsController<ManagedObject>
    {
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        return try MainQueue.sync {
            view.persistentStoreCoordinator = coordinator
            view.automaticallyMergesChangesFromParent = true
            var request = PersonModel.listRequest()
            request.fetchBatchSize = 50
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view)
            controller.delegate = delegate
            try controller.performFetch()
            return controller
        }
    }
}

/// Notes the time of each `didChange`.
final class TimingDelegate: FetchedResultsControllerDelegate {
    let log: ArrivalLog
    init(log: ArrivalLog) { self.log = log }
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { log.note(\.didChanges) }
}

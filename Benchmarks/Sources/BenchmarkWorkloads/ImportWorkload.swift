import Foundation
import ObjectGraph

/// Workload 1: import generated people through a background context, saving every `batchSize`.
public enum ImportWorkload {
    /// The raw baseline: the same rows into an identical empty store, same transaction size. Seconds.
    public static func raw(into file: StoreFile, rows: [PersonRow], batchSize: Int) throws -> Double {
        let connection = try RawConnection(path: file.path)
        let inserter = try RawInserter(connection)
        return try Measure.seconds { try inserter.insert(rows, batchSize: batchSize) }
    }

    /// ObjectGraph: a worker of a `kind` stack inserts and commits every `batchSize` rows (resetting between
    /// batches, as an importer does); `observed` adds a live controller on the view context, which merges
    /// (siblings: automatic coalesced merging) or receives the pushes (nested stacks). Seconds until
    /// everything is on disk and the main queue has caught up. Call it off the main thread, with the main
    /// queue running.
    public static func objectGraph(
        into file: StoreFile, kind: BenchStack.Kind, observed: Bool, rows: [PersonRow], batchSize: Int
    ) throws -> Double {
        let stack = try BenchStack(file: file, kind: kind, merging: observed)
        let delegate = ListDelegate()
        var controller: FetchedResultsController<ManagedObject>?
        if observed {
            try MainQueue.sync {
                let list = makeListController(stack.viewContext)
                list.delegate = delegate
                try list.performFetch()
                controller = list
            }
        }
        let worker = stack.newWorker()
        let seconds = try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try worker.performAndWait {
                    for row in rows[start..<end] {
                        let object = try worker.insertNewObject(forEntityName: PersonModel.entityName)
                        PersonModel.fill(object, from: row)
                    }
                    try stack.commit(worker)
                    worker.reset()
                }
                start = end
            }
            stack.flush()
            stack.viewContext.performAndWait {}  // every save queued for the main context is merged
        }
        if let controller {
            let count = MainQueue.sync { controller.numberOfFetchedObjects }
            guard count == rows.count else {
                throw RawSQLiteError(description: "controller holds \(count) of \(rows.count) imported people")
            }
        }
        return seconds
    }
}

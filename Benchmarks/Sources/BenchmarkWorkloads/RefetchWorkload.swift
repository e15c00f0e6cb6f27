import Dispatch
import Foundation
import ObjectGraph

/// Workload 7: changing the filter of a long list. A tracking, batched controller over `count` people on the
/// main queue fetches again for a new predicate (`lastName CONTAINS[cd] "er"`) and back to everyone: with
/// `performFetch()`, which holds the main queue for the whole fetch, and with `performFetchInBackground`, while
/// a 60 Hz main-queue heartbeat records how late it runs. The raw baseline reads the same rows' IDs and keys in
/// order with the C API (`LIKE`, SQLite's case-insensitive match, for the filter).
public enum RefetchWorkload {
    /// Seconds per change of filter.
    public struct Result: Sendable {
        /// `performFetch()`: the main queue is held this long.
        public var synchronous: [Double] = []
        /// `performFetchInBackground`: from the call until the completion ran.
        public var untilResults: [Double] = []
        /// The main queue's heartbeat during the background fetches.
        public var heartbeat = StallWorkload.Result()
    }

    static let needle = "er"

    /// The predicates the list switches between: the filter, then everyone again.
    static func predicates() throws -> [FetchPredicate?] {
        [try FetchPredicate(format: "lastName CONTAINS[cd] %@", needle), nil]
    }

    /// Runs `rounds` changes of filter each way on a copy of a store of `count` people. Call off the main
    /// thread with the main queue running.
    public static func objectGraph(count: Int, rounds: Int) throws -> Result {
        let file = try StoreFile.filled("people-\(count)", index: .name, count: count).copy(as: "refetch-\(count)")
        defer { file.remove() }
        let coordinator = try file.coordinator()
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = coordinator
        let delegate = ListDelegate()
        let controller = try MainQueue.sync {
            let controller = makeListController(view, batchSize: 50)
            controller.delegate = delegate
            try controller.performFetch()
            return controller
        }
        var result = Result()
        let predicates = try predicates()
        for _ in 0..<rounds {
            for predicate in predicates {
                result.synchronous.append(try MainQueue.sync {
                    controller.fetchRequest.predicate = predicate
                    return try Measure.seconds { try controller.performFetch() }
                })
            }
        }
        let heartbeat = StallWorkload.Heartbeat()
        heartbeat.start {}
        for _ in 0..<rounds {
            for predicate in predicates {
                let done = DispatchSemaphore(value: 0)
                let outcome = Outcome()
                MainQueue.sync {
                    controller.fetchRequest.predicate = predicate
                    let start = Measure.now()
                    controller.performFetchInBackground { fetched in
                        outcome.seconds = Double(Measure.now() - start) / 1e9
                        if case .failure(let error) = fetched { outcome.error = error }
                        done.signal()
                    }
                }
                done.wait()
                if let error = outcome.error { throw error }
                result.untilResults.append(outcome.seconds)
            }
        }
        result.heartbeat = heartbeat.stop()
        return result
    }

    /// What a background fetch's completion reports to the waiting benchmark thread.
    final class Outcome: @unchecked Sendable {
        var seconds = 0.0
        var error: ObjectGraphError?
    }

    /// Raw: the IDs and list keys of the same rows, in list order, read with the C API. Seconds per read.
    public static func raw(count: Int, rounds: Int) throws -> [Double] {
        let file = try StoreFile.filled("people-\(count)", index: .name, count: count)
        let connection = try RawConnection(path: file.path)
        let columns = "SELECT Z_PK, ZLASTNAME, ZFIRSTNAME, ZSECTION FROM ZPERSON"
        let order = " ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK"
        let statements = [
            try connection.prepare(columns + " WHERE ZLASTNAME LIKE '%" + needle + "%'" + order),
            try connection.prepare(columns + order),
        ]
        var times: [Double] = []
        for _ in 0..<rounds {
            for statement in statements {
                times.append(Measure.seconds {
                    var rows = 0
                    while statement.step() {
                        _ = statement.int(0)
                        _ = statement.text(1)
                        _ = statement.text(2)
                        _ = statement.text(3)
                        rows += 1
                    }
                    statement.reset()
                })
            }
        }
        return times
    }
}

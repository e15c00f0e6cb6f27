import Dispatch
import Foundation
import ObjectGraph

/// Workload 4: how late a 60 Hz main-queue timer fires while a background import runs at full speed.
public enum StallWorkload {
    /// Lateness statistics in seconds, the import's wall time, and the frame count.
    public struct Result: Sendable {
        public var p50 = 0.0, p99 = 0.0, max = 0.0
        public var frames = 0
        public var framesLate16ms = 0
        public var importSeconds = 0.0
    }

    /// A 60 Hz timer on the main queue that records how late each tick fires and runs `frame` (a frame's
    /// work: read the first screen).
    final class Heartbeat: @unchecked Sendable {
        let timer = DispatchSource.makeTimerSource(queue: .main)
        var lateness: [Double] = []
        var expected: UInt64 = 0
        static let period: UInt64 = 16_666_667

        func start(frame: @escaping () -> Void) {
            MainQueue.sync {
                expected = Measure.now() + Self.period
                timer.schedule(deadline: .now() + .nanoseconds(Int(Self.period)),
                    repeating: .nanoseconds(Int(Self.period)), leeway: .nanoseconds(0))
                timer.setEventHandler { [self] in
                    let now = Measure.now()
                    lateness.append(now > expected ? Double(now - expected) / 1e9 : 0)
                    // The next tick is due one period after the one that just fired (missed ticks coalesce).
                    while expected <= now { expected += Self.period }
                    frame()
                }
                timer.resume()
            }
        }

        func stop() -> Result {
            MainQueue.sync {
                timer.cancel()
                var result = Result()
                result.frames = lateness.count
                result.p50 = Measure.percentile(lateness, 50)
                result.p99 = Measure.percentile(lateness, 99)
                result.max = lateness.max() ?? 0
                result.framesLate16ms = lateness.filter { $0 > 0.016_7 }.count
                return result
            }
        }
    }

    /// Raw: a writer thread inserts `rows` at `batchSize` per transaction on its own connection while the main
    /// queue reads the first screen (30 rows in list order) at 60 Hz on a second connection.
    public static func raw(into file: StoreFile, rows: [PersonRow], batchSize: Int) throws -> Result {
        let reader = try RawConnection(path: file.path)
        let firstScreen = try reader.prepare(
            "SELECT Z_PK, ZFIRSTNAME, ZLASTNAME FROM ZPERSON ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK LIMIT 30")
        let heartbeat = Heartbeat()
        heartbeat.start {
            while firstScreen.step() { _ = firstScreen.text(2) }
            firstScreen.reset()
        }
        let seconds = try ImportWorkload.raw(into: file, rows: rows, batchSize: batchSize)
        var result = heartbeat.stop()
        result.importSeconds = seconds
        return result
    }

    /// ObjectGraph: the default (siblings) stack imports `rows` through a worker while the view context merges
    /// automatically (coalesced) into a live controller, and each 60 Hz frame reads the first 30 rows from it.
    public static func objectGraph(into file: StoreFile, rows: [PersonRow], batchSize: Int) throws -> Result {
        let stack = try BenchStack(file: file, kind: .siblings, merging: true)
        let delegate = ListDelegate()
        let controller = try MainQueue.sync {
            let controller = makeListController(stack.viewContext)
            controller.delegate = delegate
            try controller.performFetch()
            return controller
        }
        let heartbeat = Heartbeat()
        heartbeat.start {
            var shown = 0
            for section in 0..<controller.numberOfSections {
                for row in 0..<controller.numberOfObjects(inSection: section) where shown < 30 {
                    _ = controller.object(at: listIndexPath(row: row, section: section)).value(forKey: "lastName")
                    shown += 1
                }
                if shown >= 30 { break }
            }
        }
        let worker = stack.newWorker()
        let seconds = try Measure.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                try worker.performAndWait {
                    for row in rows[start..<end] {
                        PersonModel.fill(try worker.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                    }
                    try stack.commit(worker)
                    worker.reset()
                }
                start = end
            }
        }
        stack.viewContext.performAndWait {}  // every save queued for the main context is merged
        var result = heartbeat.stop()
        result.importSeconds = seconds
        _ = controller
        return result
    }
}

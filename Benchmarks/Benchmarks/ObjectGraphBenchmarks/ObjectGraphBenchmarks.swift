import Benchmark
import BenchmarkWorkloads
import Foundation
import ObjectGraph

// The ordo-one harness: wall clock, mallocs and percentiles for the workloads that need no main queue, each
// next to its raw SQLite twin ("… raw"). Compare pairs by name; `RatioReport` prints the ratios.

let benchmarks: @Sendable () -> Void = {
    let count = Int(ProcessInfo.processInfo.environment["N"] ?? "") ?? 100_000
    let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
    let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .peakMemoryResident]
    let slow = Benchmark.Configuration(metrics: metrics, timeUnits: .milliseconds, warmupIterations: 1,
        maxDuration: .seconds(20), maxIterations: 10)

    for index in PersonModel.Index.allCases {
        let label = "\(count / 1000)k, \(index == .none ? "no index" : "name index")"
        Benchmark("1. import \(label), siblings, alone", configuration: slow) { benchmark in
            let file = try StoreFile.empty("harness-import", index: index)
            defer { file.remove() }
            let coordinator = try file.coordinator()
            let worker = ManagedObjectContext(concurrencyType: .privateQueue)
            worker.persistentStoreCoordinator = coordinator
            benchmark.startMeasurement()
            try worker.performAndWait {
                var start = 0
                while start < rows.count {
                    let end = min(start + 1000, rows.count)
                    for row in rows[start..<end] {
                        PersonModel.fill(try worker.insertNewObject(forEntityName: PersonModel.entityName), from: row)
                    }
                    try worker.save()
                    worker.reset()
                    start = end
                }
            }
            benchmark.stopMeasurement()
        }
        Benchmark("1. import \(label), raw", configuration: slow) { benchmark in
            let file = try StoreFile.empty("harness-import-raw", index: index)
            defer { file.remove() }
            let inserter = try RawInserter(try RawConnection(path: file.path))
            benchmark.startMeasurement()
            try inserter.insert(rows, batchSize: 1000)
            benchmark.stopMeasurement()
        }
    }

    let fetchConfiguration = Benchmark.Configuration(metrics: metrics, timeUnits: .milliseconds, warmupIterations: 1,
        maxDuration: .seconds(10), maxIterations: 20)
    func fetchPair(_ name: String, og: @escaping (PersistentStoreCoordinator) throws -> Int,
        raw: @escaping (RawConnection) throws -> Int)
    {
        Benchmark("2. fetch \(count / 1000)k, \(name)", configuration: fetchConfiguration) { benchmark in
            let coordinator = try StoreFile.filled("people-\(count)", index: .name, count: count).coordinator()
            benchmark.startMeasurement()
            blackHole(try og(coordinator))
            benchmark.stopMeasurement()
        }
        Benchmark("2. fetch \(count / 1000)k, \(name), raw", configuration: fetchConfiguration) { benchmark in
            let connection = try RawConnection(path: StoreFile.filled("people-\(count)", index: .name, count: count).path)
            benchmark.startMeasurement()
            blackHole(try raw(connection))
            benchmark.stopMeasurement()
        }
    }
    fetchPair("objects sorted", og: { try FetchWorkload.objects($0) }, raw: FetchWorkload.rawObjects)
    fetchPair("IDs sorted", og: { try FetchWorkload.ids($0) }, raw: FetchWorkload.rawIDs)
    fetchPair("count CONTAINS[cd]", og: FetchWorkload.count, raw: FetchWorkload.rawCount)

    Benchmark("3. naive re-sort + difference(from:), 100k", configuration: fetchConfiguration) { benchmark in
        blackHole(ControllerWorkload.naive(count: 100_000, rounds: 1))
    }
}

import BenchmarkWorkloads
import Foundation

/// `RatioReport profile WORKLOAD [N]`: one ObjectGraph run of a workload and nothing else, for
/// `valgrind --tool=callgrind` (see Scripts/callgrind.sh). Stores are filled by the raw path first (reused from
/// BENCH_DIR when present, so fill them in an ordinary run before profiling).
enum Profile {
    static func run(_ arguments: [String]) throws {
        let workload = arguments.first ?? "import"
        let count = arguments.count > 1 ? Int(arguments[1]) ?? 20_000 : 20_000
        switch workload {
        case "import", "import-index":
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
            let file = try StoreFile.empty("profile-import", index: workload == "import-index" ? .name : .none)
            defer { file.remove() }
            _ = try ImportWorkload.objectGraph(
                into: file, kind: .siblings, observed: false, rows: rows, batchSize: 1000)
        case "import-raw", "import-raw-index":
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
            let file = try StoreFile.empty("profile-import-raw", index: workload == "import-raw" ? .none : .name)
            defer { file.remove() }
            _ = try ImportWorkload.raw(into: file, rows: rows, batchSize: 1000)
        case "fetch-objects", "fetch-ids", "fetch-count":
            let coordinator = try StoreFile.filled("people-\(count)", index: .name, count: count).coordinator()
            switch workload {
            case "fetch-objects": _ = try FetchWorkload.objects(coordinator)
            case "fetch-ids": _ = try FetchWorkload.ids(coordinator)
            default: _ = try FetchWorkload.count(coordinator)
            }
        case "controller":
            _ = try ControllerWorkload.objectGraph(count: count, rounds: 3)
        default:
            throw RawSQLiteError(description: "unknown profile workload \(workload)")
        }
    }
}

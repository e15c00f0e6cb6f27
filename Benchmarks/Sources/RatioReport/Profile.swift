import BenchmarkWorkloads
import Foundation
import ObjectGraph

/// `RatioReport profile WORKLOAD [N]`: one ObjectGraph run of a workload and nothing else, for
/// `valgrind --tool=callgrind` (see Scripts/callgrind.sh). Stores are filled by the raw path first (reused from
/// BENCH_DIR when present, so fill them in an ordinary run before profiling).
enum Profile {
    /// Runs the workload named by `arguments`; its error as text, nil when it succeeded.
    static func result(_ arguments: [String]) -> String? {
        do {
            try run(arguments)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func run(_ arguments: [String]) throws {
        let workload = arguments.first ?? "import"
        let count = arguments.count > 1 ? Int(arguments[1]) ?? 20_000 : 20_000
        switch workload {
        case "import", "import-index":
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
            let file = try StoreFile.empty("profile-import", index: workload == "import-index" ? .name : .none)
            defer { file.remove() }
            // PROFILE_STACK=nested|writer-main-worker profiles another stack (default siblings).
            let kind = ProcessInfo.processInfo.environment["PROFILE_STACK"].flatMap(BenchStack.Kind.init(rawValue:))
            _ = try ImportWorkload.objectGraph(
                into: file, kind: kind ?? .siblings, observed: false, rows: rows, batchSize: 1000)
        case "history-on", "history-off":
            // Workload 8's import, 100 people per save, with or without persistent history.
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
            let file = try StoreFile.empty("profile-\(workload)", index: .name)
            defer { file.remove() }
            _ = try RemoteChangeWorkload.importSeconds(into: file, rows: rows, batchSize: 100, history: workload == "history-on")
        case "fileimport-json", "fileimport-jsonl", "fileimport-csv":
            // The file is written by an ordinary run first (reused when present), so only the import is counted.
            let format: ImportFileReader.Format = workload.hasSuffix("csv") ? .csv : workload.hasSuffix("jsonl") ? .jsonLines : .json
            let name = "profile-people-\(count)"
            let url = StoreFile.scratch.appendingPathComponent(name + "." + (format == .csv ? "csv" : format == .json ? "json" : "jsonl"))
            if !FileManager.default.fileExists(atPath: url.path) {
                let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
                _ = try FileImportWorkload.write(rows, format: format, name: name)
                return
            }
            let file = try StoreFile.empty("profile-fileimport", index: .none)
            defer { file.remove() }
            _ = try FileImportWorkload.run(store: file, file: url, batchSize: 1000)
        case "import-raw", "import-raw-index":
            let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
            let file = try StoreFile.empty("profile-import-raw", index: workload == "import-raw" ? .none : .name)
            defer { file.remove() }
            _ = try ImportWorkload.raw(into: file, rows: rows, batchSize: 1000)
        case "fetch-objects", "fetch-ids", "fetch-count", "fetch-objects-noindex":
            let index: PersonModel.Index = workload.hasSuffix("-noindex") ? .none : .name
            let file = try StoreFile.filled(
                "people-\(count)\(index == .none ? "-noindex" : "")", index: index, count: count)
            let coordinator = try file.coordinator()
            switch workload {
            case "fetch-objects", "fetch-objects-noindex": _ = try FetchWorkload.objects(coordinator)
            case "fetch-ids": _ = try FetchWorkload.ids(coordinator)
            default: _ = try FetchWorkload.count(coordinator)
            }
        case "fetch-typed", "fetch-typed-format":
            // Workload 2's typed line: the #Predicate fetch, or its format-string twin.
            let file = try StoreFile.filled("people-\(count)", index: .name, count: count)
            let coordinator = try file.coordinator()
            // PROFILE_REPEAT=n runs it n times, so that one-time costs (key path probes, conformance lookups)
            // can be told from each run's.
            let repeats = ProcessInfo.processInfo.environment["PROFILE_REPEAT"].flatMap { Int($0) } ?? 1
            for _ in 0..<max(repeats, 1) {
                _ = workload == "fetch-typed"
                    ? try TypedFetchWorkload.typed(coordinator) : try TypedFetchWorkload.format(coordinator)
            }
        case "fetch-objects-raw", "fetch-objects-raw-noindex":
            // The raw twin of fetch-objects: the same SELECT over the same store file, one small object per row.
            let index: PersonModel.Index = workload.hasSuffix("-noindex") ? .none : .name
            let file = try StoreFile.filled(
                "people-\(count)\(index == .none ? "-noindex" : "")", index: index, count: count)
            _ = try FetchWorkload.rawObjects(try RawConnection(path: file.path))
        case "controller":
            let rounds = ProcessInfo.processInfo.environment["ROUNDS"].flatMap { Int($0) } ?? 3
            _ = try ControllerWorkload.objectGraph(count: count, rounds: rounds)
        default:
            throw RawSQLiteError(description: "unknown profile workload \(workload)")
        }
    }
}

/// How a profiled workload running on another thread ended, read by the main thread that waits for it.
final class ProfileRun: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var error: String?

    /// Records the end of the run and its failure, if any.
    func finish(_ failure: String?) { lock.withLock { finished = true; error = failure } }
    var isFinished: Bool { lock.withLock { finished } }
    var failure: String? { lock.withLock { error } }
}

import BenchmarkWorkloads
import Foundation

// RatioReport: every workload next to its raw SQLite baseline, back to back in one process (memory and cold
// start in child processes of their own), printing a Markdown table of ratios against the goals.
//
//     RatioReport [all|import|fetch|typed|controller|stall|memory|coldstart|remote|fileimport|peopleimport|postgres]...
//     RatioReport profile import|import-index|fileimport-json|fileimport-jsonl|fileimport-csv|history-on|history-off|import-raw|import-raw-index|fetch-objects|fetch-ids|fetch-count|fetch-typed|fetch-typed-format|controller [N]
//
// Environment: BENCH_1M=1 adds the 1M-person workloads; REPEAT=n repetitions (median; default 3);
// N=people for the 100k workloads (default 100000); BENCH_DIR=folder for the store files; BENCH_ROUNDS=1 prints
// the controller's time for every round. `postgres` (not part of `all`) needs BENCH_POSTGRES=<URI of a scratch
// database>, whose public schema it empties.

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())

// Child-process modes: one measurement, printed as key=value.
if let mode = arguments.first, mode.hasPrefix("child-") {
    do {
        let file = StoreFile(url: URL(fileURLWithPath: arguments[1]), index: mode == "child-fileimport" ? .none : .name)
        switch mode {
        case "child-remote-writer":
            try RemoteChangeWorkload.writeCommits(path: arguments[1], count: Int(arguments[2]) ?? 200, size: 10,
                gapMilliseconds: 20)
        case "child-memory":
            let memory = arguments[2] == "raw"
                ? try ScrollWorkload.rawMemory(file) : try ScrollWorkload.objectGraphMemory(file)
            print("baseline=\(memory.baselineMB) steady=\(memory.steadyAboveMB) peak=\(memory.peakAboveMB) "
                + "seconds=\(memory.seconds) rows=\(memory.rows)")
        case "child-coldstart":
            if arguments[2] == "raw" {
                print("seconds=\(try ScrollWorkload.rawColdStart(file))")
            } else {
                let times = try ScrollWorkload.objectGraphColdStart(
                    file, cacheName: arguments[2] == "cache" ? "people" : nil)
                print("seconds=\(times.firstScreen)")
                print("whole=\(times.wholeList)")
            }
        case "child-fileimport":
            let result = try FileImportWorkload.run(store: file, file: URL(fileURLWithPath: arguments[2]),
                batchSize: Int(arguments[3]) ?? 1000)
            print("seconds=\(result.seconds) first=\(result.firstBatchSeconds) rows=\(result.rows) "
                + "baseline=\(result.baselineMB) peak=\(result.peakAboveMB)")
        default:
            print("unknown mode \(mode)")
            exit(64)
        }
        exit(0)
    } catch {
        print("error=\(error)")
        exit(1)
    }
}

if arguments.first == "profile" {
    // On the main thread, without dispatchMain (valgrind 3.19 crashes in libdispatch's signal thread); the
    // profiled workloads need no running main queue (siblings stack, the controller's view context used here).
    // The nested stacks' imports need the main queue: the workload runs on a thread of its own while this
    // thread turns the main run loop, which drains the main queue without dispatchMain.
    let status = ProfileRun()
    if environment["PROFILE_STACK"].map({ $0 != "siblings" }) ?? false {
        Thread { status.finish(Profile.result(Array(arguments.dropFirst()))) }.start()
        while !status.isFinished { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.1)) }
    } else {
        status.finish(Profile.result(Array(arguments.dropFirst())))
    }
    if let failure = status.failure { print("error=\(failure)") }
    exit(status.failure == nil ? 0 : 1)
}

let sections = Set(arguments.isEmpty || arguments.contains("all")
    ? ["import", "fetch", "controller", "stall", "refetch", "typing", "memory", "coldstart", "remote", "fileimport"]
    : arguments)
let millions = environment["BENCH_1M"] == "1"
let repeats = Int(environment["REPEAT"] ?? "") ?? 3
let count = Int(environment["N"] ?? "") ?? 100_000

MainQueue.run {
    let report = Report()
    do {
        let suite = Suite(report: report, count: count, repeats: repeats, millions: millions)
        if sections.contains("import") { try suite.imports() }
        if sections.contains("fetch") { try suite.fetches() }
        if sections.contains("fetch") || sections.contains("typed") { try suite.typedFetch() }
        if sections.contains("controller") { try suite.controller() }
        if sections.contains("stall") { try suite.stall() }
        if sections.contains("refetch") { try suite.refetch() }
        if sections.contains("typing") { try suite.typing() }
        if sections.contains("memory") { try suite.memory() }
        if sections.contains("coldstart") { try suite.coldStart() }
        if sections.contains("remote") { try suite.remoteChanges() }
        if sections.contains("fileimport") { try suite.fileImport() }
        if sections.contains("fileimport") || sections.contains("peopleimport") { try suite.peopleImport() }
        if sections.contains("postgres") { try suite.postgres() }
    } catch {
        report.note("benchmark failed: \(error)")
        print(report.markdown())
        return 1
    }
    print(report.markdown())
    if environment["BENCH_DIR"] == nil { try? FileManager.default.removeItem(at: StoreFile.scratch) }
    return 0
}

import BenchmarkWorkloads
import Foundation

extension Suite {
    // MARK: 8. Changes from other processes

    func remoteChanges() throws {
        report.note("== remote changes: history cost, another process's commits, an idle watcher")
        let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
        for batchSize in [100, 1000] {
            let without = try median { let file = try StoreFile.empty("history-off", index: .name)
                defer { file.remove() }
                return try RemoteChangeWorkload.importSeconds(into: file, rows: rows, batchSize: batchSize, history: false) }
            let with = try median { let file = try StoreFile.empty("history-on", index: .name)
                defer { file.remove() }
                return try RemoteChangeWorkload.importSeconds(into: file, rows: rows, batchSize: batchSize, history: true) }
            let raw = try median { let file = try StoreFile.empty("history-raw", index: .name)
                defer { file.remove() }
                return try ImportWorkload.raw(into: file, rows: rows, batchSize: batchSize) }
            report.add(Line(workload: "8. import \(count / 1000)k, \(batchSize) per save, history on vs off",
                objectGraph: "on \(ms(with)), off \(ms(without))", raw: ms(raw),
                ratio: "history +\(fixed((with / without - 1) * 100, 1)) %", goal: "≤ 15 %", met: with <= without * 1.15))
        }
        let commits = Int(ProcessInfo.processInfo.environment["REMOTE_COMMITS"] ?? "") ?? 200
        let file = try StoreFile.empty("remote", index: .name)
        defer { file.remove() }
        let latencies = try RemoteChangeWorkload.latencies(file: file, commits: commits, child: (
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            ["child-remote-writer", file.path, String(commits)]))
        for (name, values, goal) in [("event", latencies.notification, 0.100), ("controller didChange", latencies.didChange, 0.250)] {
            let sorted = values.sorted()
            let p50 = sorted[sorted.count / 2]
            let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            report.add(Line(workload: "8. another process's commit → \(name), \(commits) commits of 10 people",
                objectGraph: "p50 \(ms(p50)), p99 \(ms(p99)), max \(ms(sorted.last ?? 0))", raw: "—",
                ratio: "—", goal: "p99 ≤ \(Int(goal * 1000)) ms", met: p99 <= goal))
        }
        let idle = try RemoteChangeWorkload.idleCPUPercent(file: file, seconds: 10)
        report.add(Line(workload: "8. idle process watching a store (10 s)", objectGraph: "\(fixed(idle, 2)) % of a core",
            raw: "—", ratio: "—", goal: "< 1 %", met: idle < 1))
    }
}

import BenchmarkWorkloads
import Foundation

extension Suite {
    // MARK: 10. The PostgreSQL store (issue 35)

    /// Needs `BENCH_POSTGRES=postgresql://…` naming a scratch database (its `public` schema is emptied).
    func postgres() throws {
        guard let uri = ProcessInfo.processInfo.environment["BENCH_POSTGRES"], !uri.isEmpty else {
            report.note("== postgres: skipped (set BENCH_POSTGRES to a scratch database's URI)")
            return
        }
        report.note("== postgres: the PostgreSQL store against raw libpq, same batches")
        let rows = { var generator = PersonGenerator(seed: 1); return generator.people(count) }()
        for batchSize in [100, 1000] {
            let store = try median { try PostgresWorkload.importSeconds(uri: uri, rows: rows, batchSize: batchSize) }
            let raw = try median { try PostgresWorkload.rawImportSeconds(uri: uri, rows: rows, batchSize: batchSize) }
            report.add(Line(workload: "10. import \(count / 1000)k into PostgreSQL, \(batchSize) per save",
                objectGraph: ms(store), raw: ms(raw), ratio: "\(fixed(raw / store))× raw speed", goal: "≥ 0.5×",
                met: raw / store >= 0.5))
        }
        _ = try PostgresWorkload.importSeconds(uri: uri, rows: rows, batchSize: 1000)
        var opens: [Double] = []
        let fetch = try median {
            let times = try PostgresWorkload.fetchSeconds(uri: uri)
            opens.append(times.open)
            return times.fetch
        }
        let rawFetch = try median { try PostgresWorkload.rawFetchSeconds(uri: uri) }
        report.add(Line(workload: "10. fetch \(count / 1000)k people as objects (store open, read every row, apart)",
            objectGraph: "\(ms(fetch)) (open \(ms(opens.sorted()[opens.count / 2])))", raw: ms(rawFetch),
            ratio: "\(fixed(fetch / rawFetch))× (open \(fixed(opens.sorted()[opens.count / 2] / rawFetch))×)",
            goal: "≤ 2×", met: fetch <= rawFetch * 2))
        for (what, needle) in [("every person", nil), ("last name CONTAINS[cd] \"mül\"", "mül" as String?)] {
            let server = try median { try PostgresWorkload.serverQuerySeconds(uri: uri, needle: needle) }
            let raw = try median { try PostgresWorkload.rawServerQuerySeconds(uri: uri, needle: needle) }
            report.add(Line(workload: "10. fetch \(what) of \(count / 1000)k sorted [cd] as objects, answered by the server",
                objectGraph: ms(server), raw: ms(raw), ratio: "\(fixed(server / raw))×", goal: "≤ 2×",
                met: server <= raw * 2))
        }
        let commits = Int(ProcessInfo.processInfo.environment["REMOTE_COMMITS"] ?? "") ?? 200
        let latencies = try PostgresWorkload.notificationLatencies(uri: uri, commits: commits).sorted()
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        report.add(Line(workload: "10. save on one client → commit event on another (NOTIFY), \(commits) saves of 10",
            objectGraph: "p50 \(ms(p50)), p99 \(ms(p99)), max \(ms(latencies.last ?? 0))", raw: "—", ratio: "—",
            goal: "p99 ≤ 50 ms", met: p99 <= 0.050))
        let listed = count
        let (events, changes) = try PostgresWorkload.controllerLatencies(uri: uri, commits: commits, listed: listed)
        for (what, times) in [("commit event", events), ("controller's didChange", changes)] {
            let sorted = times.sorted()
            let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            report.add(Line(workload: "10. save of 10 on one client → \(what) on another, listing \(listed / 1000)k, "
                    + "\(commits) saves",
                objectGraph: "p50 \(ms(sorted[sorted.count / 2])), p99 \(ms(p99)), max \(ms(sorted.last ?? 0))", raw: "—",
                ratio: "—", goal: "p99 ≤ 50 ms", met: p99 <= 0.050))
        }
    }
}

import BenchmarkWorkloads
import Foundation

extension Suite {
    /// Workload 7, typing: every keystroke of the typed words, through the text search index and by scanning,
    /// alternately in the same run; index build, size, and an import with and without it.
    func typing() throws {
        let size = millions ? 1_000_000 : count
        let importCount = min(size, 100_000)
        report.note("== typing: \(TypingWorkload.words.joined(separator: ", ")) typed into a batched list of \(size) "
            + "people (firstName/lastName/email/city CONTAINS[cd]), each keystroke performFetch() + first 30 rows")
        let result = try TypingWorkload.run(count: size, importCount: importCount, importRounds: repeats)
        for keystroke in result.keystrokes {
            report.note("  " + keystroke.text.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: " %8d matches   index %8.1f ms   scan %8.1f ms   people's way %8.1f ms",
                    keystroke.matches, keystroke.indexed * 1000, keystroke.scan * 1000, keystroke.narrowed * 1000)
                + (keystroke.didNarrow ? " (narrowed)" : ""))
        }
        let indexed = result.keystrokes.map(\.indexed)
        let scan = result.keystrokes.map(\.scan)
        let p50 = Measure.percentile(indexed, 50)
        let p99 = Measure.percentile(indexed, 99)
        report.add(Line(workload: "7. typing (\(size / 1000)k), \(indexed.count) keystrokes: p50 / p99 / max, index vs scan",
            objectGraph: "\(ms(p50)) / \(ms(p99)) / \(ms(indexed.max() ?? 0))",
            raw: "scan \(ms(Measure.percentile(scan, 50))) / \(ms(Measure.percentile(scan, 99))) / \(ms(scan.max() ?? 0))",
            ratio: fixed(Measure.percentile(scan, 50) / p50) + "× faster (p50)",
            goal: "p50 ≤ 50 ms, p99 ≤ 150 ms", met: p50 <= 0.050 && p99 <= 0.150))
        let narrowed = result.keystrokes.map(\.narrowed)
        let (n50, n99) = (Measure.percentile(narrowed, 50), Measure.percentile(narrowed, 99))
        report.add(Line(workload: "7. typing (\(size / 1000)k), \(narrowed.count) keystrokes as people fetches them "
            + "(background, narrowing when the text extends the last): p50 / p99 / max",
            objectGraph: "\(ms(n50)) / \(ms(n99)) / \(ms(narrowed.max() ?? 0))",
            raw: "scan \(ms(Measure.percentile(scan, 50))) / \(ms(Measure.percentile(scan, 99))) / \(ms(scan.max() ?? 0))",
            ratio: fixed(Measure.percentile(scan, 50) / n50) + "× faster (p50)",
            goal: "p50 ≤ 50 ms, p99 ≤ 150 ms", met: n50 <= 0.050 && n99 <= 0.150))
        let long = result.keystrokes.filter { $0.text.count >= 3 }
        report.add(Line(workload: "7. typing (\(size / 1000)k), keystrokes of 3+ characters: p50 / p99, index vs scan",
            objectGraph: "\(ms(Measure.percentile(long.map(\.indexed), 50))) / \(ms(Measure.percentile(long.map(\.indexed), 99)))",
            raw: "scan \(ms(Measure.percentile(long.map(\.scan), 50))) / \(ms(Measure.percentile(long.map(\.scan), 99)))",
            ratio: "—", goal: "reported", met: nil))
        let added = Double(result.bytesWith - result.bytesWithout) / 1_048_576
        report.add(Line(workload: "7. text index build on open (\(size / 1000)k people) and size added",
            objectGraph: "\(ms(result.indexBuild)), +\(fixed(added, 1)) MB",
            raw: "store \(fixed(Double(result.bytesWithout) / 1_048_576, 1)) MB", ratio: "—", goal: "reported", met: nil))
        let ratio = result.importWith / result.importWithout
        report.add(Line(workload: "7. import \(result.importCount / 1000)k, 1000 per save, with vs without the text index (median of \(repeats))",
            objectGraph: ms(result.importWith), raw: "without \(ms(result.importWithout))", ratio: fixed(ratio) + "×",
            goal: "≤ 1.3×", met: ratio <= 1.3))
    }
}

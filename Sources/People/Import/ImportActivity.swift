import Foundation

/// The imports of the current burst of activity, summed up for the status line: one progress bar
/// with rate and ETA across every import still running, then a summary once all have finished.
///
/// A burst starts with the first import after a quiet period; imports started while others run join it.
/// It is a value type fed with snapshots, so the text is a pure function of the progress and the time,
/// which tests check with a manual clock.
public struct ImportActivity: Sendable {
    /// One import of the burst.
    public struct Job: Sendable {
        /// A short name (`10,000 generated`, `people.csv`).
        public var name: String
        /// When it started.
        public var startedAt: ContinuousClock.Instant
        /// Its progress as last seen.
        public var progress: PersonImporter.Progress
        /// When it was first seen finished.
        public var finishedAt: ContinuousClock.Instant?
    }

    /// The imports of the burst, oldest first.
    public private(set) var jobs: [Job] = []

    /// Creates an empty activity.
    public init() {}

    /// Whether any import is still running.
    public var isRunning: Bool { jobs.contains { !$0.progress.isFinished } }

    /// Adds an import that starts now; a new burst begins if every earlier import has finished.
    public mutating func add(name: String, progress: PersonImporter.Progress, at now: ContinuousClock.Instant) {
        if !isRunning { jobs.removeAll() }
        jobs.append(Job(name: name, startedAt: now, progress: progress, finishedAt: progress.isFinished ? now : nil))
    }

    /// Records the latest progress of the import at `index`. Returns whether anything changed.
    @discardableResult
    public mutating func update(_ index: Int, progress: PersonImporter.Progress, at now: ContinuousClock.Instant) -> Bool {
        guard jobs.indices.contains(index), jobs[index].progress != progress else { return false }
        jobs[index].progress = progress
        if progress.isFinished, jobs[index].finishedAt == nil { jobs[index].finishedAt = now }
        return true
    }

    /// The status-line text at `now`, and whether it reports a failure; nil before any import.
    ///
    /// While imports run: `importing ▕████░░░░▏ 62%  4,210/s  ETA 0:04` (with `3 imports` instead of
    /// `importing` when several run). Afterwards: `imported 12,000 in 3.1 s`, with skipped rows or a
    /// failure added, and `· updating list` while `listIsCatchingUp` (everything is saved, but the list
    /// has not taken all of it in yet).
    public func statusText(now: ContinuousClock.Instant, barWidth: Int = 16, listIsCatchingUp: Bool = false)
        -> (text: String, isFailure: Bool)?
    {
        guard !jobs.isEmpty else { return nil }
        let failures = jobs.compactMap(\.progress.failure)
        let skipped = jobs.reduce(0) { $0 + $1.progress.skipped }
        let running = jobs.filter { !$0.progress.isFinished }
        guard !running.isEmpty else {
            let saved = jobs.reduce(0) { $0 + $1.progress.saved }
            let start = jobs.map(\.startedAt).min() ?? now
            let end = jobs.compactMap(\.finishedAt).max() ?? now
            var text = "imported \(NumberText.grouped(saved)) in \(String(format: "%.1f", (end - start).seconds)) s"
            if skipped > 0 { text += " · \(NumberText.grouped(skipped)) skipped" }
            if let failure = failures.first { text = "import failed: \(failure)" + (saved > 0 ? " (\(text))" : "") }
            if listIsCatchingUp { text += " · updating list" }
            return (text, !failures.isEmpty)
        }
        let total = running.reduce(0) { $0 + $1.progress.total }
        let done = running.reduce(0) { $0 + $1.progress.saved + $1.progress.skipped }
        let label = running.count == 1 ? "importing" : "\(running.count) imports"
        var text: String
        if total == 0 {
            text = "\(label) · reading \(running.first?.name ?? "file")…"
        } else {
            let filled = min(barWidth, done * barWidth / total)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
            text = "\(label) ▕\(bar)▏ \(min(100, done * 100 / total))%"
        }
        let elapsed = (now - (running.map(\.startedAt).min() ?? now)).seconds
        if elapsed > 0.2, done > 0 {
            let rate = Double(done) / elapsed
            text += "  \(NumberText.grouped(Int(rate)))/s"
            if total > done { text += "  ETA \(Self.clock(Double(total - done) / rate))" }
        }
        if skipped > 0 { text += "  \(NumberText.grouped(skipped)) skipped" }
        return (text, !failures.isEmpty)
    }

    /// `0:04`, `12:30`, `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

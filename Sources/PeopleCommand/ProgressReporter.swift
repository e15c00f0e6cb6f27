import Foundation
import People

/// Draws an import's progress bar on standard error, redrawing one line in place on a terminal and
/// printing a line per tenth otherwise; then a summary with the skipped rows.
///
/// `@unchecked Sendable`: the last tenth shown is only touched under `lock` (an `NSLock`, visible to
/// ThreadSanitizer).
final class ProgressReporter: @unchecked Sendable {
    private let name: String
    private let startedAt = ContinuousClock.now
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let lock = NSLock()
    private var lastShownTenth = -1

    init(name: String) {
        self.name = name
    }

    /// Shows `progress` (from any queue).
    func show(_ progress: PersonImporter.Progress) {
        var activity = ImportActivity()
        activity.add(name: name, progress: progress, at: startedAt)
        guard !progress.isFinished, let (text, _) = activity.statusText(now: .now, barWidth: 30) else { return }
        if isTerminal {
            write("\r\u{1B}[K\(name): \(text)")
        } else {
            let tenth = progress.percent / 10
            let isNew = lock.withLock {
                defer { lastShownTenth = max(lastShownTenth, tenth) }
                return tenth > lastShownTenth
            }
            if isNew { write("\(name): \(text)\n") }
        }
    }

    /// Prints `line` (a failed save, say) above the bar; the bar is drawn again with the next progress.
    func note(_ line: String) {
        write((isTerminal ? "\r\u{1B}[K" : "") + line + "\n")
    }

    /// Replaces the bar with the outcome.
    func finish(_ progress: PersonImporter.Progress) {
        if isTerminal { write("\r\u{1B}[K") }
        let seconds = (ContinuousClock.now - startedAt).components
        let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
        let people = progress.saved == 1 ? "person" : "people"
        var lines = ["Imported \(NumberText.grouped(progress.saved)) \(people) from \(name) in "
            + String(format: "%.1f", elapsed) + " s."]
        if progress.skipped > 0 {
            lines.append("Skipped \(NumberText.grouped(progress.skipped)) \(progress.skipped == 1 ? "row" : "rows"):")
            lines += progress.problems.map { "  \($0)" }
            if progress.skipped > progress.problems.count { lines.append("  …") }
        }
        if let failure = progress.failure { lines.append("Import failed: \(failure)") }
        write(lines.joined(separator: "\n") + "\n")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

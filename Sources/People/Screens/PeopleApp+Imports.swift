import Foundation
import ObjectGraph
import TerminalTableView

extension PeopleApp {
    /// Starts a background import of `count` generated people. Imports run side by side: each has its
    /// own context, and each saved batch lands in the list as it is merged.
    public func startImport(count: Int) {
        guard count > 0 else { return }
        let serial = nextSerial
        nextSerial += count
        let seed = options.seed &+ UInt64(importers.count + 1) &* 1_000_003
        start(PersonImporter(stack: stack, source: .generated(count: count, seed: seed, firstSerial: serial),
            batchSize: options.batchSize))
    }

    /// Starts a background import of the JSON or CSV file at `path` (`~` is the home folder; relative
    /// paths start in the current directory).
    public func startImport(file path: String) {
        let trimmed = path.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        let expanded = NSString(string: trimmed).expandingTildeInPath
        guard FileManager.default.fileExists(atPath: expanded) else {
            message = ("No such file: \(trimmed)", true)
            return
        }
        start(PersonImporter(stack: stack, source: .file(URL(fileURLWithPath: expanded)), batchSize: options.batchSize))
    }

    private func start(_ importer: PersonImporter) {
        if !importActivity.isRunning { activityIndexes.removeAll() }
        importActivity.add(name: importer.name, progress: importer.progress, at: timeSource.now)
        activityIndexes[ObjectIdentifier(importer)] = importActivity.jobs.count - 1
        importers.append(importer)
        importer.start()
        needsDisplay = true
    }
}

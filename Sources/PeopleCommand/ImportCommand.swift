import ArgumentParser
import Foundation
import People

/// `people import FILE`: imports a JSON or CSV file without the browser, with a progress bar on
/// standard error.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import people from a JSON, JSON Lines or CSV file (the formats `objectgraph import` reads).",
        discussion: """
            JSON: an array of objects whose keys are attribute names; JSON Lines: one such object per line. \
            CSV: a header row of attribute names, then one row per person. Dates are ISO 8601. The file \
            is read as it is imported (each batch is saved before the next is read). Rows that cannot be \
            stored are skipped and reported; the exit status is then 1, as it is when a save fails or the \
            file turns out malformed (the batches before stay saved).

            --report-stall follows the import with the browser's list (a fetched-results controller on the \
            view context) and runs a 60 Hz heartbeat on the main queue, then prints how late the heartbeats \
            ran (p50, p99, max) and the people per second, start to disk: the main thread's stall under \
            the chosen --stack.
            """)

    @Argument(help: "The JSON, JSON Lines (.jsonl, .ndjson) or CSV file.")
    var file: String

    @OptionGroup var storeOption: StoreOption

    @OptionGroup var stackOption: StackOption

    @Option(name: .customLong("batch-size"), help: "People per saved batch.")
    var batchSize: Int = 1000

    @Flag(name: .customLong("report-stall"), help: "Measure and print the main thread's stall during the import.")
    var reportStall = false

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize)).") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ValidationError("No such file: \(file)")
        }
        let kind = stackOption.stack
        let stack: PeopleStack
        do {
            stack = try PeopleStack(storeURL: storeOption.url, kind: kind)
        } catch {
            FileHandle.standardError.write(Data("people: cannot open the store at \(PeopleStack.displayName(of: storeOption.url)): \(error)\n".utf8))
            throw ExitCode.failure
        }
        let batchSize = batchSize
        let reportStall = reportStall
        // `run()` is called on the main thread; the main queue must run during the import (the nested
        // stacks push every batch into the view context there), so it ends in `dispatchMain()`.
        MainActor.assumeIsolated {
            let run = HeadlessImport(stack: stack, source: .file(url), batchSize: batchSize, measuresStall: reportStall)
            let bar = ProgressReporter(name: run.importer.name)
            do {
                try run.start(
                    onProgress: { progress in bar.show(progress) },
                    onDeferredFailure: { failure in bar.note("people: \(failure)") },
                    completion: { outcome in
                        bar.finish(outcome.progress)
                        if let stall = outcome.stall {
                            print(Self.stallReport(outcome, stall: stall, kind: kind))
                        }
                        Foundation.exit(outcome.failed ? EXIT_FAILURE : EXIT_SUCCESS)
                    })
            } catch {
                FileHandle.standardError.write(Data("people: cannot follow the import: \(error)\n".utf8))
                Foundation.exit(EXIT_FAILURE)
            }
        }
        dispatchMain()
    }

    /// The lines `--report-stall` prints.
    static func stallReport(_ outcome: HeadlessImport.Outcome, stall: MainQueueStallMeter.Report, kind: PeopleStack.Kind)
        -> String
    {
        let seconds = Double(outcome.elapsed.components.seconds) + Double(outcome.elapsed.components.attoseconds) / 1e18
        return """
            Main-thread stall with the \(kind) stack (60 Hz heartbeat on the main queue, list following the import):
              \(stall)
              \(NumberText.grouped(outcome.progress.saved)) people in \(String(format: "%.2f", seconds)) s to disk: \
            \(NumberText.grouped(Int(outcome.peoplePerSecond.rounded()))) people/s\
            \(outcome.listedPeople.map { "; the list shows \(NumberText.grouped($0))" } ?? "")
            """
    }
}

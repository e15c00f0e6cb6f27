import ArgumentParser
import Foundation
import People

/// `people import FILE`: imports a JSON or CSV file without the browser, with a progress bar on
/// standard error.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import people from a JSON or CSV file (the formats `objectgraph import` reads).",
        discussion: """
            JSON: an array of objects whose keys are attribute names. CSV: a header row of attribute names, \
            then one row per person. Dates are ISO 8601. Rows that cannot be stored are skipped and \
            reported; the exit status is then 1.
            """)

    @Argument(help: "The JSON or CSV file.")
    var file: String

    @OptionGroup var storeOption: StoreOption

    @Option(name: .customLong("batch-size"), help: "People per saved batch.")
    var batchSize: Int = 1000

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize)).") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ValidationError("No such file: \(file)")
        }
        let stack: PeopleStack
        do {
            stack = try PeopleStack(storeURL: storeOption.url)
        } catch {
            FileHandle.standardError.write(Data("people: cannot open the store at \(storeOption.url.path): \(error)\n".utf8))
            throw ExitCode.failure
        }
        let importer = PersonImporter(stack: stack, source: .file(url), batchSize: batchSize)
        let bar = ProgressReporter(name: importer.name)
        importer.start { progress in bar.show(progress) }
        importer.waitUntilStopped()
        let progress = importer.progress
        bar.finish(progress)
        if progress.failure != nil || progress.skipped > 0 { throw ExitCode.failure }
    }
}

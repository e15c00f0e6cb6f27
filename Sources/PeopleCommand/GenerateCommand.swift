import ArgumentParser
import Foundation
import People

/// `people generate N --out FILE`: writes generated sample people.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write N generated people to a JSON, JSON Lines or CSV file (the same people for the same seed).")

    @Argument(help: "How many people.")
    var count: Int

    @Option(name: .long, help: "The file to write: FILE.json, FILE.jsonl (or .ndjson) or FILE.csv.")
    var out: String

    @Option(name: .long, help: "Seed for the generated people.")
    var seed: UInt64 = 1

    func validate() throws {
        guard count >= 0 else { throw ValidationError("N must be 0 or more (got \(count)).") }
        guard PersonFileWriter.format(for: URL(fileURLWithPath: out)) != nil else {
            throw ValidationError("--out must end in .json, .jsonl, .ndjson or .csv (got \(out)).")
        }
    }

    func run() throws {
        let url = URL(fileURLWithPath: out)
        guard let format = PersonFileWriter.format(for: url) else { return }
        do {
            try PersonFileWriter.writeGenerated(count: count, seed: seed, to: url, format: format)
        } catch {
            FileHandle.standardError.write(Data("people: \(error)\n".utf8))
            throw ExitCode.failure
        }
        FileHandle.standardError.write(Data("Wrote \(NumberText.grouped(count)) people to \(out) (\(format.rawValue)).\n".utf8))
    }
}

import ArgumentParser
import Foundation
import People

/// `people`: a live terminal browser of a person database, built on ObjectGraph.
@main
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Browse a person database in the terminal; background imports land in the list live.",
        discussion: """
            Keys: ↑/↓ or j/k move, PgUp/PgDn, Home/End, A–Z jump to a section, \
            i imports 10,000 generated people in the background, q quits.
            """)

    @Option(name: .long, help: "The store file (default: $XDG_DATA_HOME/people/people.sqlite, else ~/.local/share/people/people.sqlite).")
    var store: String?

    @Option(name: .long, help: "Import this many generated people in the background once the list is on screen.")
    var generate: Int = 0

    @Option(name: .customLong("batch-size"), help: "People per saved batch of an import.")
    var batchSize: Int = 500

    @Option(name: .long, help: "Seed for generated people.")
    var seed: UInt64 = 1

    func validate() throws {
        guard generate >= 0 else { throw ValidationError("--generate must be 0 or more (got \(generate)).") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize)).") }
    }

    func run() throws {
        let storeURL = store.map { URL(fileURLWithPath: $0) } ?? PeopleStack.defaultStoreURL()
        let options = PeopleApp.Options(generate: generate, batchSize: batchSize, seed: seed)
        // `run()` is called on the main thread, which becomes the user interface's main queue.
        MainActor.assumeIsolated {
            PeopleTerminal.run(storeURL: storeURL, options: options)
        }
    }
}

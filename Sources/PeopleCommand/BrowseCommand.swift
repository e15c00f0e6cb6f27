import ArgumentParser
import Foundation
import People

/// `people [browse]`: the live browser.
struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the people in the terminal (the default command).",
        discussion: """
            Keys: ↑/↓ or j/k move, PgUp/PgDn, Home/End, g then a letter jumps to that section, Enter shows \
            a person, / filters (words search names, email and city; a predicate such as \
            `age > 40 AND city BEGINSWITH "Ber"` filters by it), s switches the sections (last name, first \
            name, city, age), i imports 10,000 generated people in the background, I imports a JSON or CSV \
            file, n/e/d add, edit and delete, u undoes your last add, edit or delete and U redoes it, ? lists \
            the keys, q quits.

            SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the imports after their current batch, restore the \
            terminal and end the process by that signal. A crash restores the terminal too (its handler \
            replaces the Swift backtracer while the screen is open). NO_COLOR turns colours off.
            """)

    @OptionGroup var storeOption: StoreOption

    @OptionGroup var stackOption: StackOption

    @Option(name: .long, help: "Import this many generated people in the background once the list is on screen.")
    var generate: Int = 0

    @Option(name: .customLong("batch-size"), help: "People per saved batch of an import.")
    var batchSize: Int = 500

    @Option(name: .long, help: "Seed for generated people.")
    var seed: UInt64 = 1

    @Option(name: .customLong("flash-duration"), help: "Seconds changed rows stay highlighted.")
    var flashDuration: Double = 1

    @Flag(name: .customLong("no-section-cache"),
        help: ArgumentHelp(
            "Read the list from the store at launch, not from its section cache.",
            discussion: "The cache is kept in $XDG_CACHE_HOME/people, else ~/.cache/people."))
    var noSectionCache = false

    @Option(name: .customLong("crash-after-launch"), help: .hidden)
    var crashAfterLaunch: String?

    func validate() throws {
        guard generate >= 0 else { throw ValidationError("--generate must be 0 or more (got \(generate)).") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1 (got \(batchSize)).") }
        guard flashDuration >= 0, flashDuration.isFinite else {
            throw ValidationError("--flash-duration must be 0 or more seconds (got \(flashDuration)).")
        }
    }

    func run() throws {
        let options = PeopleApp.Options(
            generate: generate, batchSize: batchSize, seed: seed,
            flashDuration: .milliseconds(Int64((flashDuration * 1000).rounded())),
            sectionCacheDirectory: noSectionCache ? nil : PeopleStack.defaultSectionCacheDirectory())
        let storeURL = storeOption.url
        let crash = crashAfterLaunch
        let kind = stackOption.stack
        // `run()` is called on the main thread, which becomes the user interface's main queue.
        MainActor.assumeIsolated {
            PeopleTerminal.run(storeURL: storeURL, stack: kind, options: options, crashAfterLaunch: crash)
        }
    }
}

import ArgumentParser
import Foundation
import People

/// `people`: a live terminal browser of a person database, built on ObjectGraph, with headless import
/// and sample-data commands.
@main
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Browse a person database in the terminal; background imports land in the list live.",
        discussion: """
            Without a subcommand, `people` browses (see `people browse --help` for its keys).
            """,
        subcommands: [BrowseCommand.self, ImportCommand.self, GenerateCommand.self],
        defaultSubcommand: BrowseCommand.self)
}

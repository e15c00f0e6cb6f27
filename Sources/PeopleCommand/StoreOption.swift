import ArgumentParser
import Foundation
import People

/// The store option shared by the commands that open one.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $XDG_DATA_HOME/people/people.sqlite, else ~/.local/share/people/people.sqlite).")
    var store: String?

    /// The store's URL.
    var url: URL { store.map { URL(fileURLWithPath: $0) } ?? PeopleStack.defaultStoreURL() }
}

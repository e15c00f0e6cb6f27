import ArgumentParser
import Foundation
import People

/// The store option shared by the commands that open one.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $XDG_DATA_HOME/people/people.sqlite, else ~/.local/share/people/people.sqlite), or a PostgreSQL database as postgresql://user@host:port/db (password from PGPASSWORD or ~/.pgpass).")
    var store: String?

    /// The store's URL: a file, or a PostgreSQL connection URI.
    var url: URL { store.map(PeopleStack.storeURL(for:)) ?? PeopleStack.defaultStoreURL() }
}

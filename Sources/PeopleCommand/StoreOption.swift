import ArgumentParser
import Foundation
import People

/// The store option shared by the commands that open one.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $XDG_DATA_HOME/people/people.sqlite, else ~/.local/share/people/people.sqlite), or a PostgreSQL database as postgresql://user@host:port/db (password from PGPASSWORD or ~/.pgpass).")
    var store: String?

    /// Refuses a `postgresql://` store that is not a valid URI, instead of taking it for a file name (which would
    /// create a file of that name, and print its password).
    func validate() throws {
        guard let store, PeopleStack.isMalformedConnectionURI(store) else { return }
        throw ValidationError("--store is not a valid postgresql:// URI (postgresql://user@host:port/database; "
            + "percent-encode special characters).")
    }

    /// The store's URL: a file, or a PostgreSQL connection URI.
    var url: URL { store.map(PeopleStack.storeURL(for:)) ?? PeopleStack.defaultStoreURL() }
}

import ArgumentParser
import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// `objectgraph model`: lists a model's entities, properties, fetch requests and configurations.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "List a model's entities, attributes, relationships, fetch requests and configurations.",
        discussion: """
            For a versioned model (.xcdatamodeld, or a compiled .momd) the current version is listed; a \
            compiled .mom file is read as well. With --from-store, the model a Core Data SQLite store was \
            written with is read from the store's model cache (Z_MODELCACHE) instead. Each entity shows its \
            own properties, not inherited ones. --json prints {"entities", "fetchRequests", \
            "configurations"}; attribute types use Xcode's spelling ("Integer 64").
            """)

    @Argument(help: ArgumentHelp("The model (.xcdatamodeld, .xcdatamodel, .momd or .mom).", valueName: "path"))
    var path: String?

    @Option(name: .customLong("from-store"),
        help: ArgumentHelp("Read the model from a Core Data store's model cache instead.", valueName: "store"))
    var fromStore: String?

    @Flag(name: .long, help: "Print JSON instead of a readable listing.")
    var json = false

    func validate() throws {
        switch (path, fromStore) {
        case (nil, nil): throw ValidationError("Give a model PATH or --from-store STORE.")
        case (_?, _?): throw ValidationError("Give a model PATH or --from-store STORE, not both.")
        default: break
        }
        // (Said without repeating the URI, which may hold a password.)
        if let fromStore, PostgresStore.isConnectionURI(fromStore) {
            throw CommandFailure("--from-store reads the model cache of a Core Data store file; a PostgreSQL "
                + "store has none: give the model file instead")
        }
    }

    func run() throws {
        let model: ManagedObjectModel
        if let fromStore {
            do {
                model = try ManagedObjectModel.loadCachedModel(fromStoreAt: URL(fileURLWithPath: fromStore))
            } catch {
                throw CommandFailure("cannot read the model of \(fromStore): \(error)")
            }
        } else {
            model = try ModelFile.load(path ?? "")
        }
        let listing = ModelListing(model: model)
        print(json ? listing.json().rendered() : listing.text())
    }
}

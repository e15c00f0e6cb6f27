import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph model`: lists a model's entities, properties, fetch requests and configurations.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "List a model's entities, attributes, relationships, fetch requests and configurations.",
        discussion: """
            For a versioned model (.xcdatamodeld) the current version is listed. Each entity shows its \
            own properties, not inherited ones. --json prints {"entities", "fetchRequests", \
            "configurations"}; attribute types use Xcode's spelling ("Integer 64").
            """)

    @Argument(help: ArgumentHelp("The model file (.xcdatamodeld or .xcdatamodel).", valueName: "path"))
    var path: String

    @Flag(name: .long, help: "Print JSON instead of a readable listing.")
    var json = false

    func run() throws {
        let model = try ModelFile.load(path)
        let listing = ModelListing(model: model)
        print(json ? listing.json().rendered() : listing.text())
    }
}

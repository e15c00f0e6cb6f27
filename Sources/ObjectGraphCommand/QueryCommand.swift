import ArgumentParser
import Foundation
import ObjectGraph

/// `objectgraph query`: prints the objects of an entity that match a predicate.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the objects of an entity that match a predicate.",
        discussion: """
            Prints every stored attribute of each matching object, plus its objectID (a URI), as an \
            aligned table or, with --json, as a JSON array of objects. --count prints only the number \
            of matches. --where takes a predicate format string, as Core Data's NSPredicate does: \
            'age >= 18 AND lastName BEGINSWITH[cd] "a"'. Sub-entities' objects are included.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The entity to fetch.", valueName: "entity"))
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate format string.", valueName: "format"))
    var whereFormat: String?

    @Option(name: .long, help: ArgumentHelp(
        "Sort by an attribute, ascending or with :desc descending; repeat for more keys.", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(name: .long, help: ArgumentHelp("Return at most n objects.", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Skip the first n matching objects.", valueName: "n"))
    var offset: Int?

    @Flag(name: .long, help: "Print only the number of matching objects.")
    var count = false

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    func run() throws {
        let model = try storeOptions.loadModel()
        guard let entityDescription = model.entity(named: entity) else {
            throw CommandFailure("the model has no entity named '\(entity)' (it has "
                + model.entities.map(\.name).joined(separator: ", ") + ")")
        }
        let runner = try QueryRunner(
            entity: entityDescription, whereFormat: whereFormat, sortKeys: sort, limit: limit, offset: offset)
        let context = try storeOptions.openContext(model: model, creating: false)
        if count {
            print(try runner.count(in: context))
            return
        }
        let rows = try runner.rows(in: context)
        print(json ? QueryRunner.json(rows) : QueryRunner.table(rows, entity: entityDescription))
    }
}

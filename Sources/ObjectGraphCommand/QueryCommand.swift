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
            of matches. Sub-entities' objects are included.

            --where takes a predicate format string, as Core Data's NSPredicate does: \
            'age >= 18 AND lastName BEGINSWITH[cd] "a"', 'company.name == "Acme"', \
            'ANY tags.name ==[c] "swift"', 'employees.@count > 2', \
            'SUBQUERY(employees, $e, $e.age < 30).@count >= 1'. Each %@ (or %d, %f) takes the next \
            --arg, read as the type of what it is compared with: a number, true/false, an ISO 8601 date, \
            an object URI for a relationship or SELF, otherwise the text as it is. A JSON array \
            (--arg '["Oslo", "Rome"]') is a list for IN %@ and BETWEEN %@. %K takes a key path.

            --template runs a fetch request template of the model; --var NAME=VALUE gives its $NAME \
            variables (and those of --where), typed the same way. A --where predicate is joined to the \
            template's with AND.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp(
        "The entity to fetch (optional with --template).", valueName: "entity"))
    var entity: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate format string.", valueName: "format"))
    var whereFormat: String?

    @Option(name: .customLong("arg"), help: ArgumentHelp(
        "A value for the next % specifier of --where; repeat for each.", valueName: "value"))
    var arguments: [String] = []

    @Option(name: .long, help: ArgumentHelp("A fetch request template of the model.", valueName: "name"))
    var template: String?

    @Option(name: .customLong("var"), help: ArgumentHelp(
        "A value for the $NAME variable of the template or --where; repeat for more.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Sort by a key (or key path through to-one relationships), ascending or :desc, optionally with a "
            + "comparison (:c, :cd, :localized, :localized-c, :localized-standard); repeat for more keys.",
        valueName: "key[:desc][:comparison]"))
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
        let runner = try QueryRunner(model: model, options: .init(
            entityName: entity, whereFormat: whereFormat, arguments: arguments, template: template,
            variables: variables, sortKeys: sort, limit: limit, offset: offset))
        let context = try storeOptions.openContext(model: model, creating: false)
        if count {
            print(try runner.count(in: context))
            return
        }
        let rows = try runner.rows(in: context)
        print(json ? QueryRunner.json(rows) : QueryRunner.table(rows, entity: runner.entity))
    }
}

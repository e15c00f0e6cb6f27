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

            Dictionary results (Core Data's dictionary result type) print a JSON array of objects, one per \
            row or group: --properties KEY,... picks key paths (to-one paths like company.name too), \
            --group-by KEY,... groups equal values (the properties default to the group keys), \
            --aggregate FUNC:KEY[:NAME] (repeatable; count, sum, avg, min, max; count alone counts rows) \
            adds an aggregate named NAME or FUNC_KEY (count for rows), --having FORMAT keeps the groups \
            whose properties and aggregates match (--having 'count > 2 AND sum_age > 100'), --distinct \
            drops repeated rows. --sort may then name properties and aggregates. Aggregates are computed \
            in SQL; the results read the saved store.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var filter: ObjectFilterOptions

    @OptionGroup var templateAndSort: TemplateAndSortOptions

    @Option(name: .long, help: ArgumentHelp("Return at most n objects.", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Skip the first n matching objects.", valueName: "n"))
    var offset: Int?

    @Flag(name: .long, help: "Print only the number of matching objects.")
    var count = false

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    @Option(name: .long, help: ArgumentHelp(
        "Print dictionaries of these key paths (comma-separated) instead of objects.", valueName: "key,..."))
    var properties: String?

    @Option(name: .customLong("group-by"), help: ArgumentHelp(
        "Group rows with equal values of these key paths (comma-separated).", valueName: "key,..."))
    var groupBy: String?

    @Option(name: .long, help: ArgumentHelp(
        "An aggregate of each group (count, sum, avg, min, max), named NAME or FUNC_KEY; repeat for more.",
        valueName: "FUNC:KEY[:NAME]"))
    var aggregate: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Keep the groups matching a predicate on their properties and aggregates.", valueName: "format"))
    var having: String?

    @Flag(name: .long, help: "Leave out repeated dictionaries.")
    var distinct = false

    func run() throws {
        let model = try storeOptions.loadModel()
        let dictionaryOptions = DictionaryQuery.Options(
            properties: Self.list(properties), groupBy: Self.list(groupBy), aggregates: aggregate, having: having,
            distinct: distinct, sortKeys: templateAndSort.sort)
        let runner = try QueryRunner(model: model, options: .init(
            entityName: filter.entity, whereFormat: filter.whereFormat, arguments: filter.arguments,
            template: templateAndSort.template, variables: templateAndSort.variables,
            sortKeys: dictionaryOptions.isRequested ? [] : templateAndSort.sort, limit: limit, offset: offset))
        let context = try storeOptions.openContext(model: model, creating: false)
        if dictionaryOptions.isRequested {
            if count { throw CommandFailure("--count cannot be combined with dictionary options; use --aggregate count") }
            print(try DictionaryQuery(base: runner.request, options: dictionaryOptions).json(in: context))
            return
        }
        if count {
            print(try runner.count(in: context))
            return
        }
        let rows = try runner.rows(in: context)
        print(json ? QueryRunner.json(rows) : QueryRunner.table(rows, entity: runner.entity))
    }

    /// `a,b, c` as `["a", "b", "c"]`; nil as none.
    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

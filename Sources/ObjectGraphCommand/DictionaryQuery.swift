import Foundation
import ObjectGraph

/// The `query` command's dictionary mode (`--properties`, `--group-by`, `--aggregate`, `--having`,
/// `--distinct`): a dictionary fetch built on the command's request, printed as a JSON array of objects
/// whose keys are the properties in the order asked (nil values as `null`).
struct DictionaryQuery {
    /// The request, with its dictionary settings.
    let request: FetchRequest<ManagedObject>

    /// What the options ask for.
    struct Options {
        var properties: [String] = []
        var groupBy: [String] = []
        /// `FUNC:KEY[:NAME]` specs.
        var aggregates: [String] = []
        var having: String?
        var distinct = false
        /// `--sort` specs, which may name aggregates and properties.
        var sortKeys: [String] = []

        /// Whether any dictionary option was given.
        var isRequested: Bool {
            !properties.isEmpty || !groupBy.isEmpty || !aggregates.isEmpty || having != nil || distinct
        }
    }

    /// Adds the dictionary options to `base` (entity, predicate, limit and offset).
    ///
    /// - Throws: ``CommandFailure`` for a malformed `--aggregate` or `--having`.
    init(base: FetchRequest<ManagedObject>, options: Options) throws(CommandFailure) {
        var request = base
        var properties = options.properties.map { FetchedProperty.keyPath($0) }
        if properties.isEmpty && !options.groupBy.isEmpty {
            properties = options.groupBy.map { FetchedProperty.keyPath($0) }
        }
        for spec in options.aggregates { properties.append(try Self.aggregate(spec)) }
        if properties.isEmpty && options.distinct {
            throw CommandFailure("--distinct needs --properties (the values that must differ)")
        }
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = options.groupBy
        request.returnsDistinctResults = options.distinct
        if let having = options.having {
            do {
                request.havingPredicate = try FetchPredicate(format: having)
            } catch {
                throw CommandFailure("invalid --having predicate: \(error)")
            }
        }
        var criteria: [SortCriterion] = []
        for spec in options.sortKeys { criteria.append(try QueryArguments.sortCriterion(spec)) }
        request.sortCriteria = criteria
        self.request = request
    }

    /// `FUNC:KEY[:NAME]`, FUNC one of count, sum, avg, min, max (or average, minimum, maximum); `count`
    /// alone (or `count:*`) counts rows. The default name is `count`, or FUNC and KEY joined by `_`
    /// (`sum_age`, `max_company_name`).
    static func aggregate(_ spec: String) throws(CommandFailure) -> FetchedProperty {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let aliases: [String: FetchedProperty.Function] = [
            "count": .count, "sum": .sum, "avg": .average, "average": .average, "min": .minimum, "minimum": .minimum,
            "max": .maximum, "maximum": .maximum,
        ]
        guard parts.count <= 3, let function = aliases[parts[0].lowercased()] else {
            throw CommandFailure("invalid --aggregate '\(spec)': write FUNC:KEY[:NAME] with FUNC one of "
                + "count, sum, avg, min, max")
        }
        var keyPath = parts.count > 1 ? parts[1] : nil
        if keyPath == "*" || keyPath == "" { keyPath = nil }
        if keyPath == nil && function != .count {
            throw CommandFailure("invalid --aggregate '\(spec)': \(parts[0]) needs a key (like \(parts[0]):age)")
        }
        let name = parts.count > 2 && !parts[2].isEmpty ? parts[2] : nil
        return .aggregate(function, keyPath, as: name)
    }

    /// Runs the fetch and renders the rows as a JSON array.
    func json(in context: ManagedObjectContext) throws(CommandFailure) -> String {
        let request = request
        let result: Result<[[String: AttributeValue]], ObjectGraphError> = context.performAndWait {
            do throws(ObjectGraphError) { return .success(try context.fetchDictionaries(request)) } catch {
                return .failure(error)
            }
        }
        let rows: [[String: AttributeValue]]
        do {
            rows = try result.get()
        } catch {
            throw CommandFailure("the query failed: \(error)")
        }
        let names = request.propertiesToFetch.isEmpty
            ? context.persistentStoreCoordinator?.managedObjectModel.entity(named: request.entityName)?
                .attributes.filter { !$0.isTransient }.map(\.name) ?? []
            : request.propertiesToFetch.map(\.name)
        return JSONOutput.array(rows.map { row in
            .object(names.map { ($0, ValueFormatting.json(row[$0] ?? .null)) })
        }).rendered()
    }
}

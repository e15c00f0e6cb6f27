import Foundation
import ObjectGraph

/// Builds a fetch request from the `query` command's options, runs it, and formats the results.
struct QueryRunner {
    /// The entity queried.
    let entity: EntityDescription
    /// The fetch request the options describe.
    let request: FetchRequest<ManagedObject>

    /// What the options ask for.
    struct Options {
        var entityName: String?
        var whereFormat: String?
        /// `--arg` values, one per `%` specifier of `whereFormat`.
        var arguments: [String] = []
        var template: String?
        /// `--var NAME=VALUE` pairs, for the template's and `whereFormat`'s `$VARIABLES`.
        var variables: [String] = []
        var sortKeys: [String] = []
        var limit: Int?
        var offset: Int?
    }

    /// Checks the options against the model and builds the request: the template's predicate (with its
    /// variables) and `--where` (with its arguments and variables) joined with AND, each `--arg` and `--var`
    /// read as the type of what it is compared with.
    ///
    /// - Throws: ``CommandFailure`` for a malformed predicate (with its column), unknown keys (named with the
    ///   entity), arguments or variables that do not fit, an unknown template or entity, or a negative limit
    ///   or offset.
    init(model: ManagedObjectModel, options: Options) throws(CommandFailure) {
        let variables = try QueryArguments.variables(options.variables)
        var template: FetchRequestTemplate?
        if let name = options.template {
            guard let found = model.fetchRequestTemplate(named: name) else {
                let names = model.fetchRequestTemplates.map(\.name).sorted()
                throw CommandFailure("the model has no fetch request template named '\(name)' ("
                    + (names.isEmpty ? "it has none" : "it has " + names.joined(separator: ", ")) + ")")
            }
            if let entityName = options.entityName, entityName != found.entityName {
                throw CommandFailure("template '\(name)' fetches \(found.entityName), not \(entityName)")
            }
            template = found
        }
        guard let entityName = options.entityName ?? template?.entityName else {
            throw CommandFailure("give --entity (or --template)")
        }
        guard let entity = model.entity(named: entityName) else {
            throw CommandFailure("the model has no entity named '\(entityName)' (it has "
                + model.entities.map(\.name).joined(separator: ", ") + ")")
        }
        self.entity = entity
        var predicates: [FetchPredicate] = []
        if let template, let predicate = try Self.templatePredicate(template, variables, entity, model) {
            predicates.append(predicate)
        }
        if let whereFormat = options.whereFormat {
            predicates.append(try Self.wherePredicate(whereFormat, options.arguments, variables, entity, model))
        } else if !options.arguments.isEmpty {
            throw CommandFailure("--arg needs a --where predicate with a % specifier for each value")
        }
        var criteria: [SortCriterion] = []
        for spec in options.sortKeys {
            let criterion = try QueryArguments.sortCriterion(spec)
            if let problem = Self.sortProblem(criterion.key, entity, model) {
                throw CommandFailure("invalid --sort '\(spec)': \(problem)")
            }
            criteria.append(criterion)
        }
        if let limit = options.limit, limit < 0 { throw CommandFailure("--limit must not be negative (got \(limit))") }
        if let offset = options.offset, offset < 0 {
            throw CommandFailure("--offset must not be negative (got \(offset))")
        }
        request = FetchRequest(entityName: entity.name, predicate: predicates.isEmpty ? nil : .and(predicates),
            sortCriteria: criteria, fetchLimit: options.limit ?? 0, fetchOffset: options.offset ?? 0)
    }

    private static func templatePredicate(
        _ template: FetchRequestTemplate, _ variables: [String: FetchPredicate.TextValue], _ entity: EntityDescription,
        _ model: ManagedObjectModel
    ) throws(CommandFailure) -> FetchPredicate? {
        do {
            guard let predicate = try template.predicate() else { return nil }
            let filled = try predicate.withSubstitutionVariables(text: variables, for: entity, in: model)
            try check(filled, entity, model, what: "template '\(template.name)'")
            return filled
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("invalid template '\(template.name)': \(error)")
        }
    }

    private static func wherePredicate(
        _ format: String, _ arguments: [String], _ variables: [String: FetchPredicate.TextValue],
        _ entity: EntityDescription, _ model: ManagedObjectModel
    ) throws(CommandFailure) -> FetchPredicate {
        do {
            var predicate = try FetchPredicate(
                format: format, textArguments: arguments.map(QueryArguments.value), for: entity, in: model)
            if !variables.isEmpty {
                predicate = try predicate.withSubstitutionVariables(text: variables, for: entity, in: model)
            }
            try check(predicate, entity, model, what: "--where predicate")
            return predicate
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("invalid --where predicate: \(error)")
        }
    }

    /// Refuses variables without values, then anything the model refuses (unknown keys, with the entity).
    private static func check(
        _ predicate: FetchPredicate, _ entity: EntityDescription, _ model: ManagedObjectModel, what: String
    ) throws {
        let missing = predicate.variableNames
        if !missing.isEmpty {
            throw CommandFailure("invalid \(what): it uses variables without values ("
                + missing.sorted().map { "$" + $0 }.joined(separator: ", ") + "); give them with --var NAME=VALUE")
        }
        do {
            try predicate.validate(for: entity, in: model)
        } catch {
            throw CommandFailure("invalid \(what): \(error) (attributes of \(entity.name): "
                + attributeList(entity) + ")")
        }
    }

    /// Why `keyPath` cannot be sorted by: it must lead through to-one relationships to a stored attribute.
    private static func sortProblem(_ keyPath: String, _ entity: EntityDescription, _ model: ManagedObjectModel)
        -> String?
    {
        var current = entity
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, key) in keys.enumerated() {
            let isLast = position == keys.count - 1
            if isLast, let attribute = current.attribute(named: key), !attribute.isTransient { return nil }
            if !isLast, let relationship = current.relationship(named: key), !relationship.isToMany,
                let destination = model.entity(named: relationship.destinationEntityName)
            {
                current = destination
                continue
            }
            return "entity \(current.name) has no " + (isLast ? "attribute" : "to-one relationship")
                + " '\(key)' (attributes: \(attributeList(current)))"
        }
        return "the key is empty"
    }

    /// How many objects match (after offset and limit).
    func count(in context: ManagedObjectContext) throws(CommandFailure) -> Int {
        let request = request
        let result: Result<Int, ObjectGraphError> = context.performAndWait {
            do throws(ObjectGraphError) { return .success(try context.count(for: request)) } catch { return .failure(error) }
        }
        do {
            return try result.get()
        } catch {
            throw CommandFailure("the query failed: \(error)")
        }
    }

    /// The matching objects as rows: `objectID` (its URI) then every stored attribute of the object's
    /// entity, in model order.
    func rows(in context: ManagedObjectContext) throws(CommandFailure) -> [[(String, AttributeValue)]] {
        let request = request
        let result: Result<[[(String, AttributeValue)]], ObjectGraphError> = context.performAndWait {
            do throws(ObjectGraphError) {
                var rows: [[(String, AttributeValue)]] = []
                for object in try context.fetch(request) {
                    var row = [("objectID", AttributeValue.string(object.objectID.uriRepresentation.absoluteString))]
                    // (loadValue: a large value that cannot be read fails the query instead of showing nil)
                    for attribute in object.entity.attributes where !attribute.isTransient {
                        row.append((attribute.name, try object.loadValue(forKey: attribute.name)))
                    }
                    rows.append(row)
                }
                return .success(rows)
            } catch {
                return .failure(error)
            }
        }
        do {
            return try result.get()
        } catch {
            throw CommandFailure("the query failed: \(error)")
        }
    }

    /// The rows as a JSON array of objects.
    static func json(_ rows: [[(String, AttributeValue)]]) -> String {
        JSONOutput.array(rows.map { row in
            .object(row.map { name, value in
                (name, name == "objectID" ? .string(value.stringValue ?? "") : ValueFormatting.json(value))
            })
        }).rendered()
    }

    /// The rows as an aligned table; columns are the union of every row's keys, in first-seen order.
    static func table(_ rows: [[(String, AttributeValue)]], entity: EntityDescription) -> String {
        var columns = ["objectID"] + entity.attributes.filter { !$0.isTransient }.map(\.name)
        var known = Set(columns)
        for row in rows {
            for (name, _) in row where known.insert(name).inserted { columns.append(name) }
        }
        var numeric = Array(repeating: true, count: columns.count)
        var cells: [[String]] = []
        for row in rows {
            let values = Dictionary(row, uniquingKeysWith: { first, _ in first })
            cells.append(columns.enumerated().map { column, name in
                let value = values[name] ?? .null
                if !value.isNull, !ValueFormatting.isNumeric(value) { numeric[column] = false }
                return ValueFormatting.text(value)
            })
        }
        var table = TextTable(headers: columns,
            alignments: numeric.enumerated().map { $0.offset > 0 && $0.element && !rows.isEmpty ? .right : .left })
        table.rows = cells
        return table.rendered()
    }

    private static func attributeList(_ entity: EntityDescription) -> String {
        entity.attributes.map(\.name).joined(separator: ", ")
    }
}

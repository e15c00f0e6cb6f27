import Foundation
import ObjectGraph

/// Builds a fetch request from the `query` command's options, runs it, and formats the results.
struct QueryRunner {
    /// The entity queried.
    let entity: EntityDescription
    /// The fetch request the options describe.
    let request: FetchRequest<ManagedObject>

    /// Checks the options against `entity` and builds the request.
    ///
    /// - Parameters:
    ///   - whereFormat: a predicate format string, or nil for all objects.
    ///   - sortKeys: `key` or `key:asc` / `key:desc`, most significant first.
    /// - Throws: ``CommandFailure`` for a malformed predicate (with its column), unknown keys, or a
    ///   negative limit or offset.
    init(entity: EntityDescription, whereFormat: String?, sortKeys: [String], limit: Int?, offset: Int?)
        throws(CommandFailure)
    {
        self.entity = entity
        var predicate: FetchPredicate?
        if let whereFormat {
            do {
                predicate = try FetchPredicate(format: whereFormat)
            } catch {
                throw CommandFailure("invalid --where predicate: \(error)")
            }
            if let variables = predicate?.variableNames, !variables.isEmpty {
                throw CommandFailure("invalid --where predicate: it uses variables without values ("
                    + variables.sorted().map { "$" + $0 }.joined(separator: ", ") + ") in \"\(whereFormat)\"")
            }
            for key in predicate?.referencedKeys.sorted() ?? [] where entity.attribute(named: key) == nil {
                throw CommandFailure("invalid --where predicate: entity \(entity.name) has no attribute '\(key)' "
                    + "(in \"\(whereFormat)\"; attributes: \(Self.attributeList(entity)))")
            }
        }
        var criteria: [SortCriterion] = []
        for spec in sortKeys {
            var key = Substring(spec)
            var ascending = true
            if let colon = spec.lastIndex(of: ":") {
                key = spec[..<colon]
                switch spec[spec.index(after: colon)...].lowercased() {
                case "asc": ascending = true
                case "desc": ascending = false
                default:
                    throw CommandFailure("invalid --sort '\(spec)': the direction after ':' must be asc or desc")
                }
            }
            guard entity.attribute(named: String(key)) != nil else {
                throw CommandFailure("invalid --sort '\(spec)': entity \(entity.name) has no attribute '\(key)' "
                    + "(attributes: \(Self.attributeList(entity)))")
            }
            criteria.append(SortCriterion(String(key), ascending: ascending))
        }
        if let limit, limit < 0 { throw CommandFailure("--limit must not be negative (got \(limit))") }
        if let offset, offset < 0 { throw CommandFailure("--offset must not be negative (got \(offset))") }
        request = FetchRequest(entityName: entity.name, predicate: predicate, sortCriteria: criteria,
            fetchLimit: limit ?? 0, fetchOffset: offset ?? 0)
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
                let objects = try context.fetch(request)
                return .success(objects.map { object in
                    [("objectID", AttributeValue.string(object.objectID.uriRepresentation.absoluteString))]
                        + object.entity.attributes.filter { !$0.isTransient }.map { ($0.name, object.value(forKey: $0.name)) }
                })
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

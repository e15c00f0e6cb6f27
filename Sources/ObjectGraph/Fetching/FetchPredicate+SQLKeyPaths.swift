import Foundation

// Key paths across relationships in SQL: to-one chains as correlated subqueries on primary keys, to-many
// paths as EXISTS, collection operators as aggregate subqueries.

extension FetchPredicate.SQLCompiler {
    typealias ResolvedKeyPath = FetchPredicate.ResolvedKeyPath

    /// A key path through a to-many relationship: the relationships up to and including the to-many one,
    /// and the rest of the path, read from each element.
    struct CollectionPath {
        let resolved: ResolvedKeyPath
        /// The keys after the to-many relationship (empty when the path ends there).
        let remainder: String
        let location: FetchPredicate.SourceLocation?
    }

    func storeSchema(_ location: FetchPredicate.SourceLocation?) throws(FetchPredicateError) -> any PredicateSQLSchema {
        guard case .store(let schema) = schema else {
            throw FetchPredicateError(
                kind: .unsupported, message: "Relationships not supported here", offset: location?.offset,
                format: location?.format, reason: "key paths across relationships need a store's tables")
        }
        return schema
    }

    func resolve(
        _ path: String, in scope: Scope, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> ResolvedKeyPath {
        let schema = try storeSchema(location)
        guard let entity = scope.entity else { throw FetchPredicateError.unknownKey(path, at: location) }
        return try FetchPredicate.ModelChecker(model: schema.model).resolve(path, on: entity, location: location)
    }

    /// The path as a collection when it crosses a to-many relationship; nil for a single-valued path (and
    /// for every key of a flat table).
    func toManyPath(
        _ path: String, in scope: Scope, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> CollectionPath? {
        guard case .store = schema else { return nil }
        let resolved = try resolve(path, in: scope, location: location)
        guard let index = resolved.toManyIndex else { return nil }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false)
        return CollectionPath(
            resolved: resolved, remainder: keys.dropFirst(index + 1).joined(separator: "."), location: location)
    }

    /// A single-valued key path: a column (possibly through to-one relationships) or an object.
    func keyPathOperand(
        _ path: String, in scope: Scope, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> SQLOperand {
        if case .flat(let columnForKey) = schema {
            guard let column = columnForKey(path) else { throw FetchPredicateError.unknownKey(path, at: location) }
            return .column(SQLFragment(column))
        }
        let resolved = try resolve(path, in: scope, location: location)
        guard !resolved.isToMany else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "To-many key path '\(path)' where a single value belongs",
                offset: location?.offset, format: location?.format,
                reason: "use ANY, ALL, NONE, IN or a collection operator with it")
        }
        if resolved.endsInObject { return try toOneIdentity(resolved.hops, in: scope) }
        return .column(try toOneValue(resolved, in: scope))
    }

    // MARK: To-one chains

    /// `FROM T1 a1 JOIN T2 a2 ON a2.Z_PK = a1.FK2 … WHERE a1.Z_PK = <scope>.FK1`, and the last alias.
    private func chain(
        _ hops: ArraySlice<ResolvedKeyPath.Hop>, in scope: Scope
    ) throws(FetchPredicateError) -> (from: String, lastAlias: String) {
        let schema = try storeSchema(nil)
        var from = ""
        var previous = scope.alias ?? ""
        var firstAlias = ""
        var firstForeignKey = ""
        for (position, hop) in hops.enumerated() {
            guard case .foreignKey(let column, _) = try link(hop), let table = schema.tableName(of: hop.destination)
            else { throw Self.missingTable(hop) }
            let alias = aliases.make("t")
            if position == 0 {
                from = "FROM \(table) \(alias)"
                firstAlias = alias
                firstForeignKey = "\(previous).\(column)"
            } else {
                from += " JOIN \(table) \(alias) ON \(alias).Z_PK = \(previous).\(column)"
            }
            previous = alias
        }
        return (from + " WHERE \(firstAlias).Z_PK = \(firstForeignKey)", previous)
    }

    func link(_ hop: ResolvedKeyPath.Hop) throws(FetchPredicateError) -> PredicateSQLLink {
        guard let link = try storeSchema(nil).link(forRelationship: hop.relationship.name, of: hop.source) else {
            throw Self.missingTable(hop)
        }
        return link
    }

    static func missingTable(_ hop: ResolvedKeyPath.Hop) -> FetchPredicateError {
        FetchPredicateError(
            kind: .unknownKey, message: "Relationship '\(hop.relationship.name)' of \(hop.source.name) is not stored",
            reason: "the store has no table or column for it")
    }

    /// The attribute at the end of a path through to-one relationships only.
    func toOneValue(_ resolved: ResolvedKeyPath, in scope: Scope) throws(FetchPredicateError) -> SQLFragment {
        let schema = try storeSchema(nil)
        guard let attribute = resolved.attribute,
            let column = schema.column(forAttribute: attribute.name, of: resolved.owner)
        else { throw FetchPredicateError.unknownKey(resolved.attribute?.name ?? "", at: nil) }
        guard !resolved.hops.isEmpty else { return SQLFragment("\(scope.alias ?? "").\(column)") }
        let (from, last) = try chain(resolved.hops[...], in: scope)
        return SQLFragment("(SELECT \(last).\(column) \(from))")
    }

    /// The object at the end of a path through to-one relationships (`company`, `company.owner`).
    func toOneIdentity(
        _ hops: [ResolvedKeyPath.Hop], in scope: Scope
    ) throws(FetchPredicateError) -> SQLOperand {
        guard let lastHop = hops.last, case .foreignKey(let column, let entityColumn) = try link(lastHop) else {
            throw FetchPredicateError(kind: .invalidValue, message: "Key path does not end in a to-one relationship")
        }
        let schema = try storeSchema(nil)
        let staticEntity = SQLFragment(String(schema.model.entityNumber(of: lastHop.destination)))
        if hops.count == 1 {
            let alias = scope.alias ?? ""
            return .identity(
                pk: SQLFragment("\(alias).\(column)"),
                entity: entityColumn.map { SQLFragment("\(alias).\($0)") } ?? staticEntity,
                destination: lastHop.destination)
        }
        let (from, last) = try chain(hops.dropLast(), in: scope)
        return .identity(
            pk: SQLFragment("(SELECT \(last).\(column) \(from))"),
            entity: entityColumn.map { SQLFragment("(SELECT \(last).\($0) \(from))") } ?? staticEntity,
            destination: lastHop.destination)
    }

    // MARK: To-many paths

    /// `FROM … WHERE <elements of the collection>` for the to-many relationship of `collection`, and the
    /// element's scope.
    func collectionSource(
        _ resolved: ResolvedKeyPath, in scope: Scope
    ) throws(FetchPredicateError) -> (from: SQLFragment, element: Scope) {
        let schema = try storeSchema(nil)
        guard let index = resolved.toManyIndex else {
            throw FetchPredicateError(kind: .invalidValue, message: "Key path has no to-many relationship")
        }
        let hop = resolved.hops[index]
        // The owner's primary key: the row itself, or the end of the to-one chain before the to-many hop.
        let owner: SQLFragment
        if index == 0 {
            owner = SQLFragment("\(scope.alias ?? "").Z_PK")
        } else if case .identity(let pk, _, _) = try toOneIdentity(Array(resolved.hops[..<index]), in: scope) {
            owner = pk
        } else {
            throw Self.missingTable(hop)
        }
        guard let table = schema.tableName(of: hop.destination) else { throw Self.missingTable(hop) }
        let element = aliases.make("t")
        let entities = "\(element).Z_ENT IN (\(schema.entityNumberList(of: hop.destination)))"
        switch try link(hop) {
        case .inverseForeignKey(let column):
            return ("FROM \(table) \(element) WHERE \(element).\(column) = " + owner + " AND \(entities)",
                Scope(entity: hop.destination, alias: element))
        case .joinTable(let name, let ownColumn, let otherColumn):
            let join = aliases.make("j")
            return (
                "FROM \(name) \(join) JOIN \(table) \(element) ON \(element).Z_PK = \(join).\(otherColumn) "
                    + "WHERE \(join).\(ownColumn) = " + owner + " AND \(entities)",
                Scope(entity: hop.destination, alias: element))
        case .foreignKey:
            throw Self.missingTable(hop)
        }
    }

    /// `EXISTS` over the elements of a to-many path: `ANY` (some element satisfies `condition`), `ALL`
    /// (none fails to), `NONE` (none does). Always true or false, never NULL. A path through several to-many
    /// relationships (`friends.tags.name`) has as elements the values reached through every one of them.
    func exists(
        _ modifier: FetchPredicate.Modifier, _ collection: CollectionPath, in scope: Scope,
        _ condition: (SQLOperand) throws(FetchPredicateError) -> SQLFragment
    ) throws(FetchPredicateError) -> SQLFragment {
        switch modifier {
        case .all:
            let failing = try someElement(collection, in: scope) { element throws(FetchPredicateError) in
                "NOT coalesce(" + (try condition(element)) + ", 0)"
            }
            return "(NOT " + failing + ")"
        case .none:
            return "(NOT " + (try someElement(collection, in: scope, condition)) + ")"
        case .any, .direct:
            return try someElement(collection, in: scope, condition)
        }
    }

    /// `EXISTS (SELECT 1 FROM <elements> AND (<condition>))`, nested once for every further to-many
    /// relationship of the path.
    private func someElement(
        _ collection: CollectionPath, in scope: Scope, _ condition: (SQLOperand) throws(FetchPredicateError) -> SQLFragment
    ) throws(FetchPredicateError) -> SQLFragment {
        let (from, elementScope) = try collectionSource(collection.resolved, in: scope)
        if !collection.remainder.isEmpty,
            let inner = try toManyPath(collection.remainder, in: elementScope, location: collection.location)
        {
            return "EXISTS (SELECT 1 " + from + " AND " + (try someElement(inner, in: elementScope, condition)) + ")"
        }
        let element: SQLOperand =
            collection.remainder.isEmpty
            ? try operand(.evaluatedObject, in: elementScope)
            : try keyPathOperand(collection.remainder, in: elementScope, location: collection.location)
        return "EXISTS (SELECT 1 " + from + " AND (" + (try condition(element)) + "))"
    }

    /// A collection operator's value: `(SELECT count(*) …)`, `objectgraph_sum((SELECT group_concat(…) …))`….
    func collectionValue(
        _ operation: FetchPredicate.CollectionOperation, in scope: Scope, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> SQLFragment {
        let resolved = try resolve(operation.collectionKeyPath, in: scope, location: location)
        var (from, elementScope) = try collectionSource(resolved, in: scope)
        if case .subquery(let subquery) = operation.source {
            from = from + " AND (" + (try compile(subquery.predicate, in: elementScope)) + ")"
        }
        guard let property = operation.property else { return "(SELECT count(*) " + from + ")" }
        guard case .column(let value) = try keyPathOperand(property, in: elementScope, location: location) else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "\(operation.function.rawValue) of '\(property)' needs an attribute",
                offset: location?.offset, format: location?.format)
        }
        switch operation.function {
        case .count:
            return "(SELECT count(*) " + from + ")"
        case .sum, .average:
            let function = operation.function == .sum
                ? PredicateSQLFunctions.sumFunctionName : PredicateSQLFunctions.averageFunctionName
            return "\(function)((SELECT group_concat(\(PredicateSQLFunctions.numberFunctionName)(" + value + ")) "
                + from + "))"
        case .minimum:
            return "(SELECT min(" + value + ") " + from + ")"
        case .maximum:
            return "(SELECT max(" + value + ") " + from + ")"
        }
    }
}

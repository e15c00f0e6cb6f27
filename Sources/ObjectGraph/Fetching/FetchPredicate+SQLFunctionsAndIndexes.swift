import Foundation
import SQLiteStorage

// Function calls and element indexes in SQL. Functions call the registered `objectgraph_function`, which
// runs the Swift code in-memory evaluation runs; indexes are scalar subqueries over the relationship's
// elements in its order.

extension FetchPredicate.SQLCompiler {
    /// `lowercase(name)`, `FUNCTION(age, 'modulus:by:', 7)`…: computed now when every argument is a constant,
    /// else `objectgraph_function(code, arguments…)`. `noindex:` is its argument.
    func functionOperand(
        _ call: FetchPredicate.FunctionCall, in scope: Scope
    ) throws(FetchPredicateError) -> SQLOperand {
        typealias Function = FetchPredicate.FunctionCall.Function
        if call.function == .noindex, call.arguments.count == 1 { return try operand(call.arguments[0], in: scope) }
        var arguments: [SQLOperand] = []
        for argument in call.arguments { arguments.append(try operand(argument, in: scope)) }
        var constants: [AttributeValue] = []
        for argument in arguments {
            guard case .constant(let value) = argument else { break }
            constants.append(Function.storedForm(value))
        }
        if constants.count == arguments.count { return .constant(call.function.apply(to: constants)) }
        let code = Function.allCases.firstIndex(of: call.function) ?? 0
        var sql = SQLFragment("\(PredicateSQLFunctions.functionFunctionName)(\(code)")
        for argument in arguments {
            switch argument {
            case .column(let fragment): sql = sql + ", " + fragment
            case .constant(let value): sql = sql + ", " + SQLFragment.bind(value)
            case .identity, .objectConstant: sql = sql + ", NULL"
            }
        }
        return .column(sql + ")")
    }

    /// `tags[FIRST].name` and the like: `(SELECT <value> FROM <elements> ORDER BY <order> LIMIT 1 OFFSET n)`,
    /// or for an element that is an object, that subquery for its `Z_PK` and for its `Z_ENT`.
    func elementOperand(
        _ index: FetchPredicate.ElementIndex, in scope: Scope, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> SQLOperand {
        let resolved = try resolve(index.collection, in: scope, location: location)
        guard resolved.isCollection, let hop = resolved.hops.last else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "'\(index.collection)' is not a to-many relationship",
                offset: location?.offset, format: location?.format)
        }
        let (from, elementScope) = try collectionSource(resolved, in: scope)
        let alias = elementScope.alias ?? ""
        var order = ["\(alias).Z_PK"]
        if hop.relationship.isOrdered, let column = try orderColumn(of: hop, elementAlias: alias, from: from) {
            order.insert(column, at: 0)
        }
        let limit: String
        switch index.position {
        case .first: limit = " ORDER BY " + order.joined(separator: ", ") + " LIMIT 1"
        case .last: limit = " ORDER BY " + order.map { $0 + " DESC" }.joined(separator: ", ") + " LIMIT 1"
        case .index(let position): limit = " ORDER BY " + order.joined(separator: ", ") + " LIMIT 1 OFFSET \(max(position, 0))"
        }
        func pick(_ value: SQLFragment) -> SQLFragment { "(SELECT " + value + " " + from + limit + ")" }
        let element: SQLOperand =
            if let property = index.property {
                try keyPathOperand(property, in: elementScope, location: location)
            } else {
                try operand(.evaluatedObject, in: elementScope)
            }
        switch element {
        case .column(let value):
            return .column(pick(value))
        case .identity(let pk, let entity, let destination):
            return .identity(pk: pick(pk), entity: pick(entity), destination: destination)
        case .constant, .objectConstant:
            return element
        }
    }

    /// The column that holds an ordered relationship's order, qualified by the alias that reads it in
    /// `from` (the element's table for one-to-many, the join table for many-to-many).
    private func orderColumn(
        of hop: ResolvedKeyPath.Hop, elementAlias: String, from: SQLFragment
    ) throws(FetchPredicateError) -> String? {
        let schema = try storeSchema(nil)
        guard let column = schema.orderColumn(forRelationship: hop.relationship.name, of: hop.source) else { return nil }
        switch try link(hop) {
        case .joinTable:
            // The join table's alias is the one `collectionSource` put right after `FROM <table> `.
            let words = from.sql.split(separator: " ")
            guard words.count > 2, words[0] == "FROM" else { return nil }
            return "\(words[2]).\(column)"
        default:
            return "\(elementAlias).\(column)"
        }
    }
}

extension PredicateSQLSchema {
    /// No order columns: unordered elements only.
    func orderColumn(forRelationship name: String, of entity: EntityDescription) -> String? { nil }
}

extension SQLiteStorePredicateSchema {
    /// `Z_FOK_<INVERSE>` on the destination's table (ordered one-to-many) or the join table's order column
    /// for this side (ordered many-to-many).
    func orderColumn(forRelationship name: String, of entity: EntityDescription) -> String? {
        guard let index = entity.relationships.firstIndex(where: { $0.name == name }) else { return nil }
        let relationship = entity.relationships[index]
        guard relationship.isToMany, relationship.isOrdered else { return nil }
        if let table = store.joinTable(of: entity, relationshipIndex: index) { return table.orderColumn }
        guard let inverseName = relationship.inverseName,
            let destination = model.entity(named: relationship.destinationEntityName),
            let layout = try? store.layout(of: destination)
        else { return nil }
        return layout.foreignKeys.first { destination.relationships[$0.relationshipIndex].name == inverseName }?.orderColumn
    }
}

extension PredicateSQLFunctions {
    /// The name of the SQL function behind built-in function calls (function code, arguments…).
    public static let functionFunctionName = "objectgraph_function"

    /// Registers `objectgraph_function(code, arguments…)`: ``FetchPredicate/FunctionCall/Function/apply(to:now:)``
    /// of the function with that position in `allCases`, on the arguments as SQLite hands them over.
    static func registerFunctionCalls(on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.registerFunction(name: functionFunctionName, argumentCount: -1, deterministic: true) { arguments in
            let functions = FetchPredicate.FunctionCall.Function.allCases
            guard let code = arguments.first?.integerValue, code >= 0, code < functions.count else { return .null }
            let values: [AttributeValue] = arguments.dropFirst().map { argument in
                switch argument {
                case .integer(let number): .integer(number)
                case .real(let number): .double(number)
                case .text(let text): .string(text)
                case .blob(let bytes): .binary(Data(bytes))
                default: .null
                }
            }
            return functions[Int(code)].apply(to: values).sqliteValue
        }
    }
}

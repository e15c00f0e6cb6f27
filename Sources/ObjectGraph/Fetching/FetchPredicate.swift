// TEMPORARY STUB — replaced by the real predicate implementation.
public struct FetchPredicate: Sendable, Hashable, CustomStringConvertible {
    public var referencedKeys: Set<String> { [] }
    public func evaluate(_ valueForKey: (String) -> AttributeValue) -> Bool { true }
    public func sqlExpression(columnForKey: (String) -> String?) throws(FetchPredicateError) -> (sql: String, bindings: [AttributeValue]) { ("1", []) }
    public var description: String { "TRUEPREDICATE" }
}
public struct FetchPredicateError: Error, Sendable, Hashable {}
public enum PredicateSQLFunctions {}
import SQLiteStorage
extension PredicateSQLFunctions {
    public static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.registerFunction(name: StringFolding.foldFunctionName, argumentCount: 1, deterministic: true) { args in
            if case .text(let s) = args.first { return .text(StringFolding.folded(s)) }
            return args.first ?? .null
        }
        try connection.registerFunction(name: StringFolding.lowercaseFunctionName, argumentCount: 1, deterministic: true) { args in
            if case .text(let s) = args.first { return .text(StringFolding.lowercased(s)) }
            return args.first ?? .null
        }
    }
}

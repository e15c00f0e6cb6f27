import Foundation
import SQLiteStorage

/// The SQL functions that compiled predicates and sort criteria call, registered on every store connection.
///
/// SQLite knows nothing of Unicode case, diacritics, Core Data's `LIKE` or ICU regular expressions. Rather
/// than approximate them in SQL, these functions run the same Swift code that in-memory evaluation runs
/// (``StringFolding`` and the predicate's text matching), so SQL and memory agree by construction.
///
/// `objectgraph_like` and `objectgraph_matches` return NULL when the text or the pattern is NULL, and 0 when
/// either is not text.
///
/// | function | arguments | result |
/// | --- | --- | --- |
/// | `objectgraph_fold` | value | ``StringFolding/folded(_:)`` of a string; other values unchanged |
/// | `objectgraph_lower` | value | ``StringFolding/lowercased(_:)`` of a string; other values unchanged |
/// | `objectgraph_unaccent` | value | the string without diacritics (case kept); other values unchanged |
/// | `objectgraph_like` | text, pattern | 1 or 0: `LIKE` with `*` and `?` |
/// | `objectgraph_matches` | text, pattern, flags | 1 or 0: whole-string ICU regex (flags 1: ignore case) |
public enum PredicateSQLFunctions {
    /// The name of the SQL function that removes diacritics but keeps case (`[d]` comparisons).
    public static let unaccentFunctionName = "objectgraph_unaccent"
    /// The name of the SQL function behind `LIKE`.
    public static let likeFunctionName = "objectgraph_like"
    /// The name of the SQL function behind `MATCHES`.
    public static let matchesFunctionName = "objectgraph_matches"

    /// Registers every function on `connection`. The store calls this once for each connection it opens,
    /// before running any statement that a predicate or a sort criterion produced.
    ///
    /// - Throws: the ``SQLiteError`` of a failed registration.
    public static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        try registerFolding(StringFolding.foldFunctionName, on: connection, StringFolding.folded)
        try registerFolding(StringFolding.lowercaseFunctionName, on: connection, StringFolding.lowercased)
        try registerFolding(unaccentFunctionName, on: connection, FetchPredicate.TextMatching.removingDiacritics)
        try connection.registerFunction(name: likeFunctionName, argumentCount: 2, deterministic: true) { arguments in
            guard arguments.count == 2 else { return .null }
            return textTest(arguments[0], arguments[1]) { text, pattern in
                FetchPredicate.TextMatching.like(text, pattern: pattern)
            }
        }
        try connection.registerFunction(name: matchesFunctionName, argumentCount: 3, deterministic: true) { arguments in
            guard arguments.count == 3 else { return .null }
            let caseInsensitive = arguments[2].integerValue.map { $0 & 1 == 1 } ?? false
            return textTest(arguments[0], arguments[1]) { text, pattern in
                FetchPredicate.TextMatching.matches(text, pattern: pattern, caseInsensitive: caseInsensitive)
            }
        }
    }

    private static func registerFolding(
        _ name: String, on connection: SQLiteConnection, _ fold: @escaping @Sendable (String) -> String
    ) throws(SQLiteError) {
        try connection.registerFunction(name: name, argumentCount: 1, deterministic: true) { arguments in
            guard let argument = arguments.first else { return .null }
            if case .text(let text) = argument { return .text(fold(text)) }
            return argument
        }
    }

    /// NULL when either argument is NULL, 0 when either is not text, otherwise the test's answer as 1 or 0.
    private static func textTest(
        _ text: SQLiteValue, _ pattern: SQLiteValue, _ test: (String, String) -> Bool
    ) -> SQLiteValue {
        if text.isNull || pattern.isNull { return .null }
        guard case .text(let string) = text, case .text(let patternString) = pattern else { return .integer(0) }
        return .integer(test(string, patternString) ? 1 : 0)
    }
}

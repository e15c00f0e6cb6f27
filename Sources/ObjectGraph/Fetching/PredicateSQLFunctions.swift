import Foundation
import SQLiteStorage

/// The SQL functions that compiled predicates and sort criteria call, registered on every store connection.
///
/// SQLite knows nothing of Unicode case, diacritics, Core Data's `LIKE` or ICU regular expressions. Rather
/// than approximate them in SQL, these functions run the same Swift code that in-memory evaluation runs
/// (``StringFolding`` and the predicate's text matching), so SQL and memory agree by construction.
///
/// `objectgraph_affix`, `objectgraph_like` and `objectgraph_matches` return NULL when the text or the pattern is
/// NULL, and 0 when either is not text.
///
/// | function | arguments | result |
/// | --- | --- | --- |
/// | `objectgraph_fold` | value | ``StringFolding/folded(_:)`` of a string; other values unchanged |
/// | `objectgraph_index_fold` | value | `objectgraph_fold`, U+0000 as U+FFFD (`TextSearchIndex`) |
/// | `objectgraph_lower` | value | ``StringFolding/lowercased(_:)`` of a string; other values unchanged |
/// | `objectgraph_unaccent` | value | the string without diacritics (case kept); other values unchanged |
/// | `objectgraph_affix` | text, folded needle, mode | 1 or 0: folded `BEGINSWITH`/`CONTAINS`/`ENDSWITH` |
/// | `objectgraph_like` | text, pattern | 1 or 0: `LIKE` with `*` and `?` |
/// | `objectgraph_matches` | text, pattern, flags | 1 or 0: whole-string ICU regex (flags 1: ignore case) |
/// | `objectgraph_number` | value | a number's exact text form for the two below; NULL otherwise |
/// | `objectgraph_sum` | list | `@sum` of a `group_concat` of numbers (0 for NULL) |
/// | `objectgraph_avg` | list | `@avg` of a `group_concat` of numbers (NULL for NULL) |
/// | `objectgraph_arithmetic` | operation, left, right | ``FetchPredicate/Arithmetic`` of two numbers; NULL otherwise |
/// | `objectgraph_collation_key` | value, variant | ``CollationKey`` of a string as a blob; other values unchanged |
/// | `objectgraph_function` | function code, arguments… | ``FetchPredicate/FunctionCall`` (`lowercase:`, `abs:`, …) |
/// | `objectgraph_upper` | text | the text upper-cased as `String.uppercased()` does (derived `uppercase:`) |
public enum PredicateSQLFunctions {
    /// The name of the SQL function that removes diacritics but keeps case (`[d]` comparisons).
    public static let unaccentFunctionName = "objectgraph_unaccent"
    /// The name of the SQL function behind `LIKE`.
    public static let likeFunctionName = "objectgraph_like"
    /// The name of the SQL function behind `MATCHES`.
    public static let matchesFunctionName = "objectgraph_matches"
    /// The name of the SQL function that writes a number exactly, for `@sum` and `@avg`.
    public static let numberFunctionName = "objectgraph_number"
    /// The name of the SQL function behind `@sum`.
    public static let sumFunctionName = "objectgraph_sum"
    /// The name of the SQL function behind `@avg`.
    public static let averageFunctionName = "objectgraph_avg"
    /// The name of the SQL function behind `+`, `-`, `*` and `/` (operation code, left, right).
    public static let arithmeticFunctionName = "objectgraph_arithmetic"
    /// The name of the SQL function that upper-cases text as `String.uppercased()` does (derived attributes'
    /// `uppercase:`).
    public static let uppercaseFunctionName = "objectgraph_upper"

    /// Registers every function on `connection`. The store calls this once for each connection it opens,
    /// before running any statement that a predicate or a sort criterion produced.
    ///
    /// - Throws: the `SQLiteError` of a failed registration.
    public static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        try registerFolding(StringFolding.foldFunctionName, on: connection, asciiLowercases: true, StringFolding.folded)
        try registerFolding(TextSearchIndex.foldFunctionName, on: connection, asciiLowercases: true, nulAsReplacement: true,
            StringFolding.folded)
        try registerFolding(StringFolding.lowercaseFunctionName, on: connection, asciiLowercases: true,
            StringFolding.lowercased)
        try registerFolding(unaccentFunctionName, on: connection, asciiLowercases: false,
            FetchPredicate.TextMatching.removingDiacritics)
        try connection.registerFunction(name: likeFunctionName, argumentCount: 2, deterministic: true) { arguments in
            guard arguments.count == 2 else { return .null }
            return textTest(arguments[0], arguments[1]) { text, pattern in
                FetchPredicate.TextMatching.like(text, pattern: pattern)
            }
        }
        try registerAffix(on: connection)
        try connection.registerTextFunction(name: uppercaseFunctionName, deterministic: true) { bytes, emit in
            var upper = String(decoding: bytes, as: UTF8.self).uppercased()
            upper.withUTF8 { emit($0) }
        }
        try connection.registerFunction(name: arithmeticFunctionName, argumentCount: 3, deterministic: true) { arguments in
            let operations = FetchPredicate.Arithmetic.Operation.allCases
            guard arguments.count == 3, let code = arguments[0].integerValue, code >= 0, code < operations.count else {
                return .null
            }
            func number(_ value: SQLiteValue) -> AttributeValue {
                switch value {
                case .integer(let number): .integer(number)
                case .real(let number): .double(number)
                default: .null
                }
            }
            switch FetchPredicate.Arithmetic.apply(operations[Int(code)], number(arguments[1]), number(arguments[2])) {
            case .integer(let number): return .integer(number)
            case .double(let number): return .real(number)
            default: return .null
            }
        }
        try registerAggregatesAndCollation(on: connection)
        try registerFunctionCalls(on: connection)
        try connection.registerFunction(name: matchesFunctionName, argumentCount: 3, deterministic: true) { arguments in
            guard arguments.count == 3 else { return .null }
            let caseInsensitive = arguments[2].integerValue.map { $0 & 1 == 1 } ?? false
            return textTest(arguments[0], arguments[1]) { text, pattern in
                FetchPredicate.TextMatching.matches(text, pattern: pattern, caseInsensitive: caseInsensitive)
            }
        }
    }

    /// `@sum`, `@avg` and localized sort keys.
    private static func registerAggregatesAndCollation(on connection: SQLiteConnection) throws(SQLiteError) {
        try connection.registerFunction(name: numberFunctionName, argumentCount: 1, deterministic: true) { arguments in
            switch arguments.first {
            case .integer(let value)?: .text(CollectionArithmetic.encode(Double(value)))
            case .real(let value)?: .text(CollectionArithmetic.encode(value))
            default: .null
            }
        }
        try connection.registerFunction(name: sumFunctionName, argumentCount: 1, deterministic: true) { arguments in
            guard case .text(let list)? = arguments.first else { return .real(0) }
            return .real(CollectionArithmetic.sum(CollectionArithmetic.decode(list)))
        }
        try connection.registerFunction(name: averageFunctionName, argumentCount: 1, deterministic: true) { arguments in
            guard case .text(let list)? = arguments.first,
                let average = CollectionArithmetic.average(CollectionArithmetic.decode(list))
            else { return .null }
            return .real(average)
        }
        try connection.registerFunction(name: CollationKey.functionName, argumentCount: 2, deterministic: true) { arguments in
            guard arguments.count == 2 else { return .null }
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            let variant = arguments[1].integerValue.flatMap { CollationKey.Variant(rawValue: Int($0)) } ?? .standard
            return .blob(CollationKey.key(for: text, variant: variant))
        }
    }

    /// Registers `fold` on the text's UTF-8 bytes. ASCII text (the common case) has no diacritics, so `fold`
    /// of it is the text itself or, when `asciiLowercases`, its ASCII lower-casing: done in a stack buffer
    /// without making a Swift string. Only other text goes through `fold`.
    ///
    /// With `nulAsReplacement`, U+0000 comes out as U+FFFD (the text search index's form, ``TextSearchIndex``).
    private static func registerFolding(
        _ name: String, on connection: SQLiteConnection, asciiLowercases: Bool, nulAsReplacement: Bool = false,
        _ fold: @escaping @Sendable (String) -> String
    ) throws(SQLiteError) {
        try connection.registerTextFunction(name: name, deterministic: true) { bytes, emit in
            guard StringFolding.isASCII(bytes), !(nulAsReplacement && bytes.contains(0)) else {
                var folded = fold(String(decoding: bytes, as: UTF8.self))
                if nulAsReplacement && folded.utf8.contains(0) {
                    folded = folded.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
                }
                folded.withUTF8 { emit($0) }
                return
            }
            guard asciiLowercases else { return emit(bytes) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { buffer in
                for (offset, byte) in bytes.enumerated() {
                    buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                }
                emit(UnsafeBufferPointer(rebasing: buffer[..<bytes.count]))
            }
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

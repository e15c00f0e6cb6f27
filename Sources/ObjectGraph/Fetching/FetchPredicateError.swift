/// Why a predicate could not be parsed, substituted, or compiled to SQL: what went wrong, and where.
///
/// Predicates come from people (the app's filter field), from model files (fetch-request templates) and
/// from code; a malformed one must never crash and must say precisely what is wrong. So every error
/// carries the format string it came from and the character position of the offending part, and its
/// ``description`` reads like:
///
/// ```text
/// Unexpected token '>' at column 6 in "age >> 3": expected a value
/// ```
///
/// Columns in the description are 1-based (as editors count); ``offset`` is the same place, 0-based.
public struct FetchPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of a predicate error, for callers that react differently to each.
    public enum Kind: Sendable, Hashable {
        /// The format string is not well formed: an unexpected token, an unterminated string, an
        /// unbalanced parenthesis.
        case syntax
        /// The format string uses part of the predicate language this implementation does not support, or a
        /// function it does not know (`FUNCTION(x, 'reverse:')`; see Documentation/predicate-grammar.md).
        case unsupported
        /// A `%` specifier and its argument do not fit: too few or too many arguments, or a value of the
        /// wrong kind (for example a number for `%K`).
        case argument
        /// A value cannot be used where it appears: a collection compared with `==`, `BETWEEN` without
        /// exactly two bounds, a malformed regular expression, NaN.
        case invalidValue
        /// A `$VARIABLE` was still unsubstituted when the predicate was compiled or checked.
        case unsubstitutedVariable
        /// A key the predicate reads is not known to the entity (no stored attribute or relationship of that
        /// name).
        case unknownKey
    }

    /// What kind of error this is.
    public var kind: Kind
    /// What went wrong, for example `Unexpected token '>'`.
    public var message: String
    /// The 0-based character position in ``format`` where the problem is, when it has one.
    ///
    /// Characters are Swift `Character`s (extended grapheme clusters), which is what a person counts.
    public var offset: Int?
    /// The format string the predicate was parsed from, when it was parsed from one.
    public var format: String?
    /// What was expected instead, or why the value is wrong (for example `expected a value`).
    public var reason: String?

    /// Creates an error; the parser, the substitution and the SQL compiler make these.
    public init(kind: Kind, message: String, offset: Int? = nil, format: String? = nil, reason: String? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.format = format
        self.reason = reason
    }

    /// The error in one line: what, where (1-based column and the format string), and why.
    public var description: String {
        var text = message
        if let offset { text += " at column \(offset + 1)" }
        if let format { text += " in \"\(format)\"" }
        if let reason { text += ": \(reason)" }
        return text
    }
}

/// Why a Foundation `Predicate` (from `#Predicate`) or `SortDescriptor` could not be turned into a
/// ``FetchPredicate`` or ``SortCriterion``: which construct, where in the expression, and why.
///
/// Translation never falls back to evaluating Swift closures row by row: anything without an exact
/// counterpart in the predicate language is refused with this error, naming the construct, for example:
///
/// ```text
/// Unsupported construct StringContainsRegex in Conjunction › rhs: regular expressions have no SQL counterpart
/// ```
public struct TypedPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of the problem.
    public enum Kind: Sendable, Hashable {
        /// An expression type or a use of one that has no counterpart in the predicate language (a regular
        /// expression, a type cast, a subscript, arithmetic on stored values, a closure over a captured array).
        case unsupported
        /// A key path that names no `@Attribute`, `@ToOne`, `@ToMany` or `@OrderedToMany` property (a computed
        /// property, a stored Swift property, a property of a type that is not a managed object).
        case unknownKeyPath
        /// A captured value that cannot be stored in an attribute or used in a predicate.
        case invalidValue
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// The construct refused: an expression type (`StringContainsRegex`), a key path (`\Person.fullName`) or
    /// a value's type.
    public var construct: String
    /// Where the construct sits in the predicate, outermost first (`["Conjunction", "rhs"]`); empty at the top.
    public var path: [String]
    /// Why it is refused and what to write instead.
    public var reason: String

    /// Creates an error; the translator makes these.
    public init(kind: Kind, construct: String, path: [String] = [], reason: String) {
        self.kind = kind
        self.construct = construct
        self.path = path
        self.reason = reason
    }

    /// The error in one line: what, where and why.
    public var description: String {
        let what: String
        switch kind {
        case .unsupported: what = "Unsupported construct"
        case .unknownKeyPath: what = "Key path with no model property"
        case .invalidValue: what = "Unusable value"
        }
        let place = path.isEmpty ? "" : " in " + path.joined(separator: " › ")
        return "\(what) \(construct)\(place): \(reason)"
    }
}

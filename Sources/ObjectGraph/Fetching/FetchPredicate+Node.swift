import Foundation

extension FetchPredicate {
    /// One node of a predicate's tree: a constant, a comparison, or a logical combination of nodes.
    ///
    /// The tree is what a format string parses into, what ``FetchPredicate/evaluate(_:)`` walks and what
    /// ``FetchPredicate/sqlExpression(columnForKey:)`` compiles. Build one directly when that reads better
    /// than a format string.
    public indirect enum Node: Sendable, Hashable {
        /// Always true (`TRUEPREDICATE`).
        case truePredicate
        /// Always false (`FALSEPREDICATE`).
        case falsePredicate
        /// Two expressions compared with an operator (`age > 30`).
        case comparison(Comparison)
        /// The negation of a node (`NOT …`). Unknown stays unknown.
        case not(Node)
        /// All operands must hold (`… AND …`); an empty list is true.
        case and([Node])
        /// At least one operand must hold (`… OR …`); an empty list is false.
        case or([Node])
    }

    /// Two expressions compared with an operator and options, such as `name BEGINSWITH[cd] "zo"`, possibly
    /// over every element of a collection (`ANY tags.name == "x"`).
    public struct Comparison: Sendable, Hashable {
        /// The expression on the left of the operator.
        public var left: Operand
        /// The operator.
        public var operation: Operator
        /// The expression on the right of the operator.
        public var right: Operand
        /// How strings are compared (`[c]`, `[d]`, `[cd]`, `[n]`).
        public var options: ComparisonOptions
        /// Whether the comparison applies to the left side as a whole or to the elements of a collection on
        /// the left (`ANY`, `ALL`, `NONE`).
        public var modifier: Modifier

        /// Creates a comparison `left operation right`, or `ANY left operation right` and so on.
        public init(
            _ left: Operand, _ operation: Operator, _ right: Operand, options: ComparisonOptions = [],
            modifier: Modifier = .direct
        ) {
            self.left = left
            self.operation = operation
            self.right = right
            self.options = options
            self.modifier = modifier
        }
    }

    /// The aggregate qualifier of a comparison: how a collection on its left is tested.
    ///
    /// A qualified comparison is always true or false, never unknown: `ANY` holds when the comparison is
    /// true for at least one element, `ALL` when it is true for every element (so for no element of an empty
    /// collection), `NONE` when it is true for no element. `SOME` is a synonym of `ANY`, and `NONE` means
    /// `NOT ANY`.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        /// No qualifier: the left side is compared as a whole. (A to-many key path on either side without a
        /// qualifier is read as `ANY`, as Core Data's SQLite store does, except where `IN` or `CONTAINS` take
        /// it as the collection to look in.)
        case direct = ""
        /// `ANY` (also written `SOME`): at least one element.
        case any = "ANY"
        /// `ALL`: every element.
        case all = "ALL"
        /// `NONE`: no element.
        case none = "NONE"
    }

    /// A comparison operator, named as Core Data names them.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (also written `=`).
        case equalTo = "=="
        /// `!=` (also written `<>`).
        case notEqualTo = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=` (also written `=<`).
        case lessThanOrEqualTo = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=` (also written `=>`).
        case greaterThanOrEqualTo = ">="
        /// `BEGINSWITH`: the left string starts with the right one.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: the left string ends with the right one.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: the left string contains the right one, or the left collection contains the right value.
        case contains = "CONTAINS"
        /// `LIKE`: the left string matches the right pattern as a whole (`*` any run, `?` one character).
        case like = "LIKE"
        /// `MATCHES`: the left string matches the right ICU regular expression as a whole.
        case matches = "MATCHES"
        /// `IN`: the left value is one of the right collection, or the left string occurs in the right one.
        case `in` = "IN"
        /// `BETWEEN`: the left value lies between the two values on the right, both included.
        case between = "BETWEEN"
    }

    /// How a comparison treats strings: the `[c]`, `[d]`, `[cd]` and `[n]` modifiers.
    public struct ComparisonOptions: OptionSet, Sendable, Hashable {
        /// The options as bits: 1 for case-insensitive, 2 for diacritic-insensitive, 4 for normalized.
        public let rawValue: Int
        /// Creates options from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `[c]`: upper and lower case compare equal (`"ZOË" ==[c] "zoë"`).
        public static let caseInsensitive = ComparisonOptions(rawValue: 1)
        /// `[d]`: letters compare equal with or without diacritics (`"Zoë" ==[d] "Zoe"`).
        public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
        /// `[n]`: the strings are already normalized (folded the same way on both sides), so they are compared
        /// byte for byte, as without options. As in Core Data, `n` supersedes `c` and `d`.
        public static let normalized = ComparisonOptions(rawValue: 4)
    }
}

extension FetchPredicate.ComparisonOptions {
    /// The options that take effect: none with `[n]`, which supersedes `[c]` and `[d]`.
    var effective: FetchPredicate.ComparisonOptions {
        // Bit tests rather than `contains`: this runs for every comparison of every object.
        rawValue & Self.normalized.rawValue != 0 ? Self(rawValue: 0) : self
    }
}

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

    /// Two expressions compared with an operator and options, such as `name BEGINSWITH[cd] "zo"`.
    public struct Comparison: Sendable, Hashable {
        /// The expression on the left of the operator.
        public var left: Operand
        /// The operator.
        public var operation: Operator
        /// The expression on the right of the operator.
        public var right: Operand
        /// How strings are compared (`[c]`, `[d]`, `[cd]`).
        public var options: ComparisonOptions

        /// Creates a comparison `left operation right`.
        public init(_ left: Operand, _ operation: Operator, _ right: Operand, options: ComparisonOptions = []) {
            self.left = left
            self.operation = operation
            self.right = right
            self.options = options
        }
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

    /// How a comparison treats strings: the `[c]`, `[d]` and `[cd]` modifiers.
    public struct ComparisonOptions: OptionSet, Sendable, Hashable {
        /// The options as bits: 1 for case-insensitive, 2 for diacritic-insensitive.
        public let rawValue: Int
        /// Creates options from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `[c]`: upper and lower case compare equal (`"ZOË" ==[c] "zoë"`).
        public static let caseInsensitive = ComparisonOptions(rawValue: 1)
        /// `[d]`: letters compare equal with or without diacritics (`"Zoë" ==[d] "Zoe"`).
        public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    }

    /// Where in a format string a key or a variable was written, so that errors found later (an unknown key
    /// when compiling to SQL, say) can point at it.
    ///
    /// Locations never take part in equality: a predicate parsed from its own ``FetchPredicate/predicateFormat``
    /// equals the original.
    public struct SourceLocation: Sendable, Hashable {
        /// The 0-based character position in ``format``.
        public var offset: Int
        /// The format string.
        public var format: String

        /// Creates a location.
        public init(offset: Int, format: String) {
            self.offset = offset
            self.format = format
        }
    }

    /// One side of a comparison: a key, a constant, a `$VARIABLE` or a `{…}` collection.
    ///
    /// Later versions extend this with key paths across relationships, functions and subqueries.
    public indirect enum Operand: Sendable, Hashable {
        /// The value of an attribute of the object being tested; the location, if any, says where it was written.
        case key(String, SourceLocation? = nil)
        /// A constant.
        case value(AttributeValue)
        /// A placeholder filled in by ``FetchPredicate/withSubstitutionVariables(_:)``.
        case variable(String, SourceLocation? = nil)
        /// A collection of expressions, for `IN`, `BETWEEN` and a collection on the left of `CONTAINS`.
        case aggregate([Operand])

        /// Equality ignores source locations.
        public static func == (lhs: Operand, rhs: Operand) -> Bool {
            switch (lhs, rhs) {
            case let (.key(a, _), .key(b, _)): a == b
            case let (.value(a), .value(b)): a == b
            case let (.variable(a, _), .variable(b, _)): a == b
            case let (.aggregate(a), .aggregate(b)): a == b
            default: false
            }
        }

        /// Hashing ignores source locations.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .key(let name, _):
                hasher.combine(0)
                hasher.combine(name)
            case .value(let value):
                hasher.combine(1)
                hasher.combine(value)
            case .variable(let name, _):
                hasher.combine(2)
                hasher.combine(name)
            case .aggregate(let elements):
                hasher.combine(3)
                hasher.combine(elements)
            }
        }
    }
}

// MARK: - Tree utilities

extension FetchPredicate.Node {
    /// Calls `body` for every expression in the tree, aggregate elements included.
    func visitOperands(_ body: (FetchPredicate.Operand) -> Void) {
        switch self {
        case .truePredicate, .falsePredicate:
            break
        case .comparison(let comparison):
            comparison.left.visit(body)
            comparison.right.visit(body)
        case .not(let operand):
            operand.visitOperands(body)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.visitOperands(body) }
        }
    }

    /// The tree with trivial compounds removed and constants in their canonical kinds.
    func normalized() -> FetchPredicate.Node {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .comparison(var comparison):
            comparison.left = comparison.left.normalized()
            comparison.right = comparison.right.normalized()
            return .comparison(comparison)
        case .not(let operand):
            return .not(operand.normalized())
        case .and(let operands):
            if operands.isEmpty { return .truePredicate }
            if operands.count == 1 { return operands[0].normalized() }
            return .and(operands.map { $0.normalized() })
        case .or(let operands):
            if operands.isEmpty { return .falsePredicate }
            if operands.count == 1 { return operands[0].normalized() }
            return .or(operands.map { $0.normalized() })
        }
    }

    /// The tree with variables replaced, each changed comparison re-validated.
    func substituting(_ variables: [String: AttributeValue]) throws(FetchPredicateError) -> FetchPredicate.Node {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .comparison(var comparison):
            var changed = false
            var location: FetchPredicate.SourceLocation?
            let left = comparison.left.substituting(variables, changed: &changed, location: &location)
            let right = comparison.right.substituting(variables, changed: &changed, location: &location)
            guard changed else { return self }
            comparison.left = left
            comparison.right = right
            if let problem = comparison.validationProblem() {
                throw FetchPredicateError(
                    kind: .invalidValue, message: problem.message, offset: location?.offset,
                    format: location?.format, reason: problem.reason)
            }
            return .comparison(comparison)
        case .not(let operand):
            return .not(try operand.substituting(variables))
        case .and(let operands):
            var result: [FetchPredicate.Node] = []
            for operand in operands { result.append(try operand.substituting(variables)) }
            return .and(result)
        case .or(let operands):
            var result: [FetchPredicate.Node] = []
            for operand in operands { result.append(try operand.substituting(variables)) }
            return .or(result)
        }
    }

    /// The first comparison in the tree that cannot be evaluated as written, if any.
    func firstValidationProblem() -> (comparison: FetchPredicate.Comparison, message: String, reason: String?)? {
        switch self {
        case .truePredicate, .falsePredicate:
            return nil
        case .comparison(let comparison):
            return comparison.validationProblem().map { (comparison, $0.message, $0.reason) }
        case .not(let operand):
            return operand.firstValidationProblem()
        case .and(let operands), .or(let operands):
            for operand in operands {
                if let problem = operand.firstValidationProblem() { return problem }
            }
            return nil
        }
    }
}

extension FetchPredicate.Operand {
    func visit(_ body: (FetchPredicate.Operand) -> Void) {
        body(self)
        if case .aggregate(let elements) = self {
            for element in elements { element.visit(body) }
        }
    }

    func normalized() -> FetchPredicate.Operand {
        switch self {
        case .value(.decimal(let decimal)):
            return .value(.double(NSDecimalNumber(decimal: decimal).doubleValue))
        case .aggregate(let elements):
            return .aggregate(elements.map { $0.normalized() })
        default:
            return self
        }
    }

    /// The expression with known variables replaced. `changed` becomes true when one was, and `location`
    /// receives the first replaced variable's location, for error messages.
    func substituting(
        _ variables: [String: AttributeValue], changed: inout Bool, location: inout FetchPredicate.SourceLocation?
    ) -> FetchPredicate.Operand {
        switch self {
        case .variable(let name, let variableLocation):
            guard let value = variables[name] else { return self }
            if !changed { location = variableLocation }
            changed = true
            return FetchPredicate.Operand.value(value).normalized()
        case .aggregate(let elements):
            var result: [FetchPredicate.Operand] = []
            for element in elements {
                result.append(element.substituting(variables, changed: &changed, location: &location))
            }
            return .aggregate(result)
        default:
            return self
        }
    }

    /// The source location of the first key or variable in the expression.
    var firstLocation: FetchPredicate.SourceLocation? {
        switch self {
        case .key(_, let location), .variable(_, let location): return location
        case .value: return nil
        case .aggregate(let elements):
            for element in elements {
                if let location = element.firstLocation { return location }
            }
            return nil
        }
    }

    var isAggregate: Bool {
        if case .aggregate = self { return true }
        return false
    }
}

extension FetchPredicate.Comparison {
    /// Why this comparison cannot be evaluated as written (a collection where a single value belongs, a
    /// `BETWEEN` without two bounds, NaN, a malformed constant regular expression), or nil when it can.
    func validationProblem() -> (message: String, reason: String?)? {
        for side in [left, right] {
            if case .aggregate(let elements) = side, elements.contains(where: \.isAggregate) {
                return ("Nested collection", "a collection inside a collection cannot be compared")
            }
            var hasNaN = false
            side.visit { expression in
                if case .value(.double(let number)) = expression, number.isNaN { hasNaN = true }
            }
            if hasNaN { return ("NaN value", "NaN is not equal to anything and cannot be stored; use nil") }
        }
        switch operation {
        case .in:
            if left.isAggregate {
                return ("Collection before IN", "the left side of IN must be a single value")
            }
        case .contains:
            if right.isAggregate {
                return ("Collection after CONTAINS", "the right side of CONTAINS must be a single value")
            }
        case .between:
            if left.isAggregate {
                return ("Collection before BETWEEN", "the left side of BETWEEN must be a single value")
            }
            switch right {
            case .aggregate(let bounds) where bounds.count != 2:
                return ("BETWEEN with \(bounds.count) bounds", "BETWEEN needs exactly two values, {low, high}")
            case .aggregate, .variable:
                break
            case .key, .value:
                return ("BETWEEN without bounds", "BETWEEN needs two values, {low, high}")
            }
        default:
            if left.isAggregate || right.isAggregate {
                return (
                    "Collection used with \(operation.rawValue)",
                    "a collection can only be used with IN, BETWEEN, or on the left of CONTAINS"
                )
            }
        }
        if operation == .matches, case .value(let pattern) = right, let text = pattern.predicateText {
            if let problem = FetchPredicate.TextMatching.regularExpressionProblem(pattern: text, options: options) {
                return ("Invalid regular expression", problem)
            }
        }
        return nil
    }
}

extension AttributeValue {
    /// The text of a textual value (a string or a URL), as SQLite stores it; nil for other kinds.
    var predicateText: String? {
        switch self {
        case .string(let value): value
        case .uri(let value): value.absoluteString
        default: nil
        }
    }
}

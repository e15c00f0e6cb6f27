import Foundation

extension FetchPredicate {
    /// Whether an object satisfies the predicate, evaluated in memory.
    ///
    /// `valueForKey` returns the object's value for an attribute name (``AttributeValue/null`` for nil or
    /// unknown keys). The answer is the one the SQLite store gives for the same values: comparisons are
    /// three-valued internally (true, false, unknown) exactly as in SQL, and only a predicate that comes
    /// out true matches. A comparison involving an unsubstituted `$VARIABLE` is unknown; see
    /// ``checkAllVariablesSubstituted()``.
    public func evaluate(_ valueForKey: (String) -> AttributeValue) -> Bool {
        withoutActuallyEscaping(valueForKey) { valueForKey in
            Evaluator(valueForKey: valueForKey).evaluate(node) == .true
        }
    }

    /// The three truth values of SQL, which in-memory evaluation follows so that it agrees with the store.
    enum Truth: Sendable, Hashable {
        case `true`, `false`, unknown

        init(_ flag: Bool) { self = flag ? .true : .false }

        static prefix func ! (operand: Truth) -> Truth {
            switch operand {
            case .true: .false
            case .false: .true
            case .unknown: .unknown
            }
        }

        /// Kleene conjunction: false wins, then unknown.
        static func all(_ values: some Sequence<Truth>) -> Truth {
            var result = Truth.true
            for value in values {
                if value == .false { return .false }
                if value == .unknown { result = .unknown }
            }
            return result
        }

        /// Kleene disjunction: true wins, then unknown.
        static func any(_ values: some Sequence<Truth>) -> Truth {
            var result = Truth.false
            for value in values {
                if value == .true { return .true }
                if value == .unknown { result = .unknown }
            }
            return result
        }
    }

    /// An expression's value for one object.
    enum Resolved {
        case value(AttributeValue)
        case collection([Resolved])
        /// An unsubstituted variable: every comparison with it is unknown.
        case unresolved
    }

    struct Evaluator {
        let valueForKey: (String) -> AttributeValue

        func evaluate(_ node: Node) -> Truth {
            switch node {
            case .truePredicate: .true
            case .falsePredicate: .false
            case .comparison(let comparison): evaluate(comparison)
            case .not(let operand): !evaluate(operand)
            case .and(let operands): Truth.all(operands.lazy.map(evaluate))
            case .or(let operands): Truth.any(operands.lazy.map(evaluate))
            }
        }

        func resolve(_ expression: Operand) -> Resolved {
            switch expression {
            case .key(let name, _): .value(valueForKey(name))
            case .value(let value): .value(value)
            case .variable: .unresolved
            case .aggregate(let elements): .collection(elements.map(resolve))
            }
        }

        func evaluate(_ comparison: Comparison) -> Truth {
            let left = resolve(comparison.left)
            let right = resolve(comparison.right)
            let options = comparison.options
            switch (comparison.operation, left, right) {
            case (.in, _, .collection(let elements)), (.contains, .collection(let elements), _):
                let member = comparison.operation == .in ? left : right
                return Truth.any(elements.lazy.map { Self.scalar(.equalTo, member, $0, options) })
            case (.in, _, _):
                return Self.scalar(.contains, right, left, options)
            case (.between, _, .collection(let bounds)) where bounds.count == 2:
                return Truth.all([
                    Self.scalar(.greaterThanOrEqualTo, left, bounds[0], options),
                    Self.scalar(.lessThanOrEqualTo, left, bounds[1], options),
                ])
            default:
                return Self.scalar(comparison.operation, left, right, options)
            }
        }

        /// A comparison of two single values; collections where single values belong are unknown (such trees
        /// are refused when parsed, and when compiled to SQL).
        static func scalar(_ operation: Operator, _ left: Resolved, _ right: Resolved, _ options: ComparisonOptions)
            -> Truth
        {
            guard case .value(let leftValue) = left, case .value(let rightValue) = right else { return .unknown }
            return ValueComparison.compare(leftValue, operation, rightValue, options: options)
        }
    }
}

extension FetchPredicate {
    /// The comparison of two single values, the one definition that SQL compilation reproduces.
    enum ValueComparison {
        /// The storage classes SQLite compares within: values of different classes are never equal.
        enum StorageClass: Sendable, Hashable {
            case null, numeric, text, blob

            init(_ value: AttributeValue) {
                switch value {
                case .null: self = .null
                case .integer, .double, .decimal, .boolean, .date: self = .numeric
                case .string, .uri: self = .text
                case .binary, .uuid: self = .blob
                }
            }

            /// The `typeof()` names SQLite reports for values of this class.
            var sqlTypeNames: [String] {
                switch self {
                case .null: ["null"]
                case .numeric: ["integer", "real"]
                case .text: ["text"]
                case .blob: ["blob"]
                }
            }
        }

        static func compare(
            _ left: AttributeValue, _ operation: FetchPredicate.Operator, _ right: AttributeValue,
            options: FetchPredicate.ComparisonOptions
        ) -> FetchPredicate.Truth {
            switch operation {
            case .equalTo:
                return .init(equal(left, right, options: options))
            case .notEqualTo:
                return .init(!equal(left, right, options: options))
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                let folding = TextMatching.Folding(options)
                let lhs = folding.apply(left)
                let rhs = folding.apply(right)
                if lhs.isNull || rhs.isNull { return .unknown }
                guard let order = order(lhs, rhs) else { return .false }
                switch operation {
                case .lessThan: return .init(order < 0)
                case .lessThanOrEqualTo: return .init(order <= 0)
                case .greaterThan: return .init(order > 0)
                default: return .init(order >= 0)
                }
            case .beginsWith, .endsWith, .contains, .like, .matches, .in:
                // Each side is a Kleene conjunct of "is a string": a non-nil non-string makes the whole false,
                // otherwise a nil makes it unknown (SQL's `… AND typeof(x) IN ('text','null')` does the same).
                let leftText = left.predicateText
                let rightText = right.predicateText
                if (leftText == nil && !left.isNull) || (rightText == nil && !right.isNull) { return .false }
                guard let text = leftText, let operand = rightText else { return .unknown }
                switch operation {
                case .matches:
                    let unaccent = options.contains(.diacriticInsensitive)
                    return .init(
                        TextMatching.matches(
                            unaccent ? TextMatching.removingDiacritics(text) : text,
                            pattern: unaccent ? TextMatching.removingDiacritics(operand) : operand,
                            caseInsensitive: options.contains(.caseInsensitive)))
                case .in:
                    // `needle IN haystack` with a single haystack string: a substring test.
                    return compare(right, .contains, left, options: options)
                default:
                    let folding = TextMatching.Folding(options)
                    let lhs = folding.apply(text)
                    let rhs = folding.apply(operand)
                    switch operation {
                    case .beginsWith: return .init(TextMatching.hasPrefix(lhs, rhs))
                    case .endsWith: return .init(TextMatching.hasSuffix(lhs, rhs))
                    case .contains: return .init(TextMatching.contains(lhs, rhs))
                    default: return .init(TextMatching.like(lhs, pattern: rhs))
                    }
                }
            case .between:
                // A single value after BETWEEN: refused when parsed; unknown when built by hand.
                return .unknown
            }
        }

        /// Two-valued equality: nil equals only nil; values of different storage classes differ.
        static func equal(_ left: AttributeValue, _ right: AttributeValue, options: FetchPredicate.ComparisonOptions)
            -> Bool
        {
            let folding = TextMatching.Folding(options)
            let lhs = folding.apply(left)
            let rhs = folding.apply(right)
            if lhs.isNull || rhs.isNull { return lhs.isNull && rhs.isNull }
            return order(lhs, rhs) == 0
        }

        /// The order of two non-nil values of the same storage class as SQLite's BINARY collation sees them
        /// (``AttributeValue/storeOrder(comparedTo:)``, with integers and reals compared exactly as SQLite does);
        /// nil when their classes differ.
        static func order(_ left: AttributeValue, _ right: AttributeValue) -> Int? {
            let leftClass = StorageClass(left)
            guard leftClass == StorageClass(right) else { return nil }
            if leftClass == .numeric {
                switch (sqliteNumber(left), sqliteNumber(right)) {
                case let (.integer(a), .integer(b)): return a < b ? -1 : (a == b ? 0 : 1)
                case let (.real(a), .real(b)): return a < b ? -1 : (a == b ? 0 : 1)
                case let (.integer(a), .real(b)): return compareExactly(a, b)
                case let (.real(a), .integer(b)): return -compareExactly(b, a)
                }
            }
            return left.storeOrder(comparedTo: right)
        }

        private enum SQLiteNumber {
            case integer(Int64)
            case real(Double)
        }

        private static func sqliteNumber(_ value: AttributeValue) -> SQLiteNumber {
            switch value {
            case .integer(let number): .integer(number)
            case .boolean(let flag): .integer(flag ? 1 : 0)
            default: .real(value.numericValue)
            }
        }

        /// Compares an integer with a double without rounding the integer, as SQLite does.
        private static func compareExactly(_ integer: Int64, _ real: Double) -> Int {
            if real.isNaN { return 1 }
            if real < -9_223_372_036_854_775_808.0 { return 1 }
            if real >= 9_223_372_036_854_775_808.0 { return -1 }
            let truncated = Int64(real)
            if integer < truncated { return -1 }
            if integer > truncated { return 1 }
            let widened = Double(integer)
            if widened < real { return -1 }
            if widened > real { return 1 }
            return 0
        }
    }
}

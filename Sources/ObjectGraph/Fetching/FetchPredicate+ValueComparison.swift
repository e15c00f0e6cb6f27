import Foundation

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
            let options = options.effective
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

import Foundation

extension FetchPredicate {
    /// Arithmetic on two expressions: `age + 1`, `price * quantity`, `total / count`.
    ///
    /// The same in memory and in SQL: `+`, `-` and `*` of integers (and Booleans, as 0 and 1) are integers,
    /// computed as doubles instead when they overflow (as SQLite does); any double (a date counts as its
    /// seconds since 2001, a decimal as a double) makes the result a double; `/` always divides exactly, as
    /// Core Data's `divide:by:` does (`7 / 2` is 3.5: SQLite's integer division would depend on whether a
    /// date or decimal column happened to store a whole number as an integer); division by zero and a result
    /// that is not a number (∞ − ∞) are nil; any operand that is nil or not a number (a string, data, a UUID,
    /// an object) makes the result nil. Unary minus is written `0 - x`.
    public struct Arithmetic: Sendable, Hashable {
        /// The four operations of the format syntax.
        public enum Operation: String, Sendable, Hashable, CaseIterable {
            /// `+`.
            case add = "+"
            /// `-`.
            case subtract = "-"
            /// `*`.
            case multiply = "*"
            /// `/`.
            case divide = "/"
        }

        /// The left operand.
        public var left: Operand
        /// The operation.
        public var operation: Operation
        /// The right operand.
        public var right: Operand

        /// Creates `left operation right`.
        public init(_ left: Operand, _ operation: Operation, _ right: Operand) {
            self.left = left
            self.operation = operation
            self.right = right
        }

        /// The result for two operand values, as SQLite computes it.
        public static func apply(_ operation: Operation, _ left: AttributeValue, _ right: AttributeValue) -> AttributeValue {
            guard let lhs = Number(left), let rhs = Number(right) else { return .null }
            if case .integer(let a) = lhs, case .integer(let b) = rhs, operation != .divide {
                let result: (partialValue: Int64, overflow: Bool)
                switch operation {
                case .add: result = a.addingReportingOverflow(b)
                case .subtract: result = a.subtractingReportingOverflow(b)
                default: result = a.multipliedReportingOverflow(by: b)
                }
                if !result.overflow { return .integer(result.partialValue) }
            }
            let a = lhs.double
            let b = rhs.double
            let value: Double
            switch operation {
            case .add: value = a + b
            case .subtract: value = a - b
            case .multiply: value = a * b
            case .divide:
                if b == 0 { return .null }
                value = a / b
            }
            return value.isNaN ? .null : .double(value)
        }

        /// A value as SQLite's arithmetic sees it.
        private enum Number {
            case integer(Int64)
            case double(Double)

            init?(_ value: AttributeValue) {
                switch value {
                case .integer(let number): self = .integer(number)
                case .boolean(let flag): self = .integer(flag ? 1 : 0)
                case .double(let number): self = .double(number)
                case .decimal(let number): self = .double(NSDecimalNumber(decimal: number).doubleValue)
                case .date(let date): self = .double(date.timeIntervalSinceReferenceDate)
                default: return nil
                }
            }

            var double: Double {
                switch self {
                case .integer(let number): Double(number)
                case .double(let number): number
                }
            }
        }
    }
}

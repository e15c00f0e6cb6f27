import Foundation

extension FetchPredicate {
    /// A call of one of the built-in functions of Core Data's predicate language (`NSExpression`'s
    /// function names): `FUNCTION(name, 'lowercase:')`, `lowercase(name)`, `abs(score)`,
    /// `FUNCTION(age, 'modulus:by:', 7)`, `now()`.
    ///
    /// Every function computes the same value in memory and in SQL: the SQLite store calls a registered
    /// SQL function (`objectgraph_function`) that runs ``Function/apply(to:now:)``, the code in-memory
    /// evaluation runs. Arguments are read as SQLite stores them: a date is its seconds since 2001, a
    /// Boolean is 0 or 1, a URL is its text, a decimal is a double. An argument of the wrong kind (text for
    /// `abs:`, a number for `lowercase:`), a nil argument, or a result that is not a number (`sqrt:` of a
    /// negative number) makes the value nil, which no comparison but `== nil` matches.
    public struct FunctionCall: Sendable, Hashable {
        /// The function.
        public var function: Function
        /// The arguments, as many as ``Function/argumentCount`` says; the first is the receiver of the
        /// `FUNCTION(receiver, 'name', …)` spelling.
        public var arguments: [Operand]

        /// Creates a call: `.init(.lowercase, [.key("name")])`.
        public init(_ function: Function, _ arguments: [Operand]) {
            self.function = function
            self.arguments = arguments
        }
    }
}

extension FetchPredicate.FunctionCall {
    /// The built-in functions, named as `NSExpression(forFunction:arguments:)` names them. Those of
    /// `NSExpression` that Core Data's SQLite store cannot answer, or that cannot give one answer in SQL and in
    /// memory (`random`, the statistics of literal arrays, `distanceToLocation:fromLocation:`), are not here; see
    /// the predicate grammar documentation.
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// `lowercase:` — text lower-cased as `String.lowercased()` does (all of Unicode).
        case lowercase = "lowercase:"
        /// `uppercase:` — text upper-cased as `String.uppercased()` does (`ß` becomes `SS`).
        case uppercase = "uppercase:"
        /// `length` — the number of UTF-16 code units of text (`NSString.length`), written
        /// `FUNCTION(name, 'length')` or `length(name)`.
        case length = "length"
        /// `abs:` — the absolute value (an integer stays an integer; `abs` of the smallest 64-bit integer
        /// is a double).
        case abs = "abs:"
        /// `sqrt:` — the square root, a double; nil for a negative number.
        case sqrt = "sqrt:"
        /// `floor:` — the largest whole number not above the argument (integers unchanged, doubles stay doubles).
        case floor = "floor:"
        /// `ceiling:` — the smallest whole number not below the argument.
        case ceiling = "ceiling:"
        /// `trunc:` — the argument without its fractional part.
        case trunc = "trunc:"
        /// `exp:` — e raised to the argument.
        case exp = "exp:"
        /// `ln:` — the natural logarithm; nil for a negative number.
        case ln = "ln:"
        /// `log:` — the base-10 logarithm; nil for a negative number.
        case log = "log:"
        /// `raise:toPower:` — the first argument raised to the second, a double (as `**` is in Foundation).
        case raise = "raise:toPower:"
        /// `add:to:` — `a + b` (see ``FetchPredicate/Arithmetic`` for the rules).
        case add = "add:to:"
        /// `from:subtract:` — `a - b`.
        case subtract = "from:subtract:"
        /// `multiply:by:` — `a * b`.
        case multiply = "multiply:by:"
        /// `divide:by:` — `a / b`, always exact; nil when dividing by zero.
        case divide = "divide:by:"
        /// `modulus:by:` — the remainder of `a / b` with the sign of `a`: an integer for two integers, `fmod`
        /// otherwise; nil when dividing by zero.
        case modulus = "modulus:by:"
        /// `bitwiseAnd:with:` — of two integers (Booleans count as 0 and 1, a whole double as that integer); nil
        /// for anything else.
        case bitwiseAnd = "bitwiseAnd:with:"
        /// `bitwiseOr:with:` — of two integers.
        case bitwiseOr = "bitwiseOr:with:"
        /// `bitwiseXor:with:` — of two integers.
        case bitwiseXor = "bitwiseXor:with:"
        /// `leftshift:by:` — an integer shifted left (a shift by 64 or more gives 0, a negative shift goes right).
        case leftShift = "leftshift:by:"
        /// `rightshift:by:` — an integer shifted right, keeping its sign.
        case rightShift = "rightshift:by:"
        /// `onesComplement:` — every bit of an integer inverted.
        case onesComplement = "onesComplement:"
        /// `now` — the current date, taken when the predicate is compiled to SQL or evaluated.
        case now = "now"
        /// `noindex:` — the argument unchanged (Core Data's hint not to use an index).
        case noindex = "noindex:"

        /// How many arguments the function takes.
        public var argumentCount: Int {
            switch self {
            case .now: 0
            case .add, .subtract, .multiply, .divide, .modulus, .raise, .bitwiseAnd, .bitwiseOr, .bitwiseXor,
                .leftShift, .rightShift:
                2
            default: 1
            }
        }

        /// The name of the `name(arguments)` spelling: the selector's first part (`lowercase`, `modulus`, `now`).
        public var callName: String {
            String(rawValue.prefix { $0 != ":" })
        }

        /// The function a `FUNCTION(…)` selector names: an `NSExpression` function name (`lowercase:`), or one of
        /// the `NSString` methods with a function of the same meaning (`lowercaseString`, `uppercaseString`,
        /// `length`).
        public init?(selector: String) {
            switch selector {
            case "lowercaseString": self = .lowercase
            case "uppercaseString": self = .uppercase
            default: self.init(rawValue: selector)
            }
        }

        /// The function the `name(arguments)` spelling names: its ``callName``, in any case.
        public init?(callName: String) {
            let lowered = callName.lowercased()
            guard let function = Self.allCases.first(where: { $0.callName.lowercased() == lowered }) else { return nil }
            self = function
        }

        /// The function's value for `arguments` (each as ``storedForm(_:)`` makes it); `now` is the date
        /// `now` returns.
        ///
        /// A double that is a whole number computes as that integer: SQLite stores such a value in a column
        /// of numeric affinity (dates, decimals) as an integer, so memory and SQL must not tell them apart.
        public func apply(to values: [AttributeValue], now: Date = Date()) -> AttributeValue {
            guard values.count == argumentCount else { return .null }
            let arguments = values.map { value -> AttributeValue in
                if case .double(let number) = value, let integer = Int64(exactly: number) { return .integer(integer) }
                return value
            }
            switch self {
            case .now:
                return .date(now)
            case .noindex:
                return arguments[0]
            case .lowercase, .uppercase, .length:
                guard case .string(let text) = arguments[0] else { return .null }
                switch self {
                case .lowercase: return .string(text.lowercased())
                case .uppercase: return .string(text.uppercased())
                default: return .integer(Int64(text.utf16.count))
                }
            case .add, .subtract, .multiply, .divide:
                let operation: FetchPredicate.Arithmetic.Operation =
                    switch self {
                    case .add: .add
                    case .subtract: .subtract
                    case .multiply: .multiply
                    default: .divide
                    }
                return FetchPredicate.Arithmetic.apply(operation, arguments[0], arguments[1])
            case .abs, .floor, .ceiling, .trunc:
                return Self.rounding(self, arguments[0])
            case .sqrt, .exp, .ln, .log:
                guard let value = arguments[0].functionDouble else { return .null }
                let result: Double =
                    switch self {
                    case .sqrt: value.squareRoot()
                    case .exp: Foundation.exp(value)
                    case .ln: Foundation.log(value)
                    default: Foundation.log10(value)
                    }
                return result.isNaN ? .null : .double(result)
            case .raise:
                guard let base = arguments[0].functionDouble, let power = arguments[1].functionDouble else { return .null }
                let result = Foundation.pow(base, power)
                return result.isNaN ? .null : .double(result)
            case .modulus:
                return Self.modulus(arguments[0], arguments[1])
            case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement:
                return Self.bitwise(self, arguments)
            }
        }

        private static func rounding(_ function: Function, _ argument: AttributeValue) -> AttributeValue {
            if case .integer(let number) = argument {
                guard function == .abs, number < 0 else { return argument }
                return number == .min ? .double(-Double(number)) : .integer(-number)
            }
            guard case .double(let number) = argument else { return .null }
            switch function {
            case .abs: return .double(Swift.abs(number))
            case .floor: return .double(number.rounded(.down))
            case .ceiling: return .double(number.rounded(.up))
            default: return .double(number.rounded(.towardZero))
            }
        }

        private static func modulus(_ left: AttributeValue, _ right: AttributeValue) -> AttributeValue {
            if case .integer(let a) = left, case .integer(let b) = right {
                guard b != 0 else { return .null }
                return .integer(a.remainderReportingOverflow(dividingBy: b).partialValue)
            }
            guard let a = left.functionDouble, let b = right.functionDouble, b != 0 else { return .null }
            let result = fmod(a, b)
            return result.isNaN ? .null : .double(result)
        }

        /// Bitwise operations on integers; a double that is a whole number counts as that integer (a column
        /// with numeric affinity may store `2.0` as `2`), anything else makes the result nil.
        private static func bitwise(_ function: Function, _ arguments: [AttributeValue]) -> AttributeValue {
            func integer(_ value: AttributeValue) -> Int64? {
                switch value {
                case .integer(let number): number
                case .double(let number): Int64(exactly: number)
                default: nil
                }
            }
            guard let a = integer(arguments[0]) else { return .null }
            if function == .onesComplement { return .integer(~a) }
            guard let b = integer(arguments[1]) else { return .null }
            switch function {
            case .bitwiseAnd: return .integer(a & b)
            case .bitwiseOr: return .integer(a | b)
            case .bitwiseXor: return .integer(a ^ b)
            case .leftShift: return .integer(a << b)
            default: return .integer(a >> b)
            }
        }

        /// A value as SQLite hands it to a function, so that memory and SQL see the same argument: Booleans
        /// as 0 and 1, dates as seconds since 2001, decimals as doubles, URLs as text, UUIDs as their bytes,
        /// `-0.0` as `0.0`.
        public static func storedForm(_ value: AttributeValue) -> AttributeValue {
            switch value {
            case .boolean(let flag): .integer(flag ? 1 : 0)
            case .double(let number) where number == 0: .double(0)  // SQLite keeps no sign on zero
            case .date(let date): .double(date.timeIntervalSinceReferenceDate)
            case .decimal(let number): .double(AttributeValue.double(from: number))
            case .uri(let url): .string(url.absoluteString)
            case .uuid: .binary(Data(value.sqlBytes))
            default: value
            }
        }
    }
}

extension AttributeValue {
    /// A number (in stored form) as a double, for the functions that compute in doubles.
    fileprivate var functionDouble: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}

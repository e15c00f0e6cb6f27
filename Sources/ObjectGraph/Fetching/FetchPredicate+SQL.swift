import Foundation

extension FetchPredicate {
    /// Compiles the predicate to an SQL expression for a `WHERE` clause, with every value as a bound parameter.
    ///
    /// `columnForKey` maps an attribute name to the SQL that reads its column (for example `"t0"."ZAGE"`);
    /// its result is used verbatim, so it must come from the model, never from user input. Values from the
    /// format string or its arguments only ever appear as `?` placeholders, bound in order from `bindings`
    /// (use ``AttributeValue/sqliteValue`` to bind them): no argument can change the statement's meaning.
    ///
    /// The expression gives, row for row, the answer ``evaluate(_:)`` gives in memory; a row matches when
    /// it is true (SQL's NULL is the unknown of three-valued logic). Case- and diacritic-insensitive
    /// comparisons, `LIKE` and `MATCHES` call the functions that ``PredicateSQLFunctions/register(on:)``
    /// installs on the connection.
    ///
    /// - Throws: ``FetchPredicateError`` with kind ``FetchPredicateError/Kind/unknownKey`` when
    ///   `columnForKey` returns nil (naming the key and its position in the format string),
    ///   ``FetchPredicateError/Kind/unsubstitutedVariable`` for a `$VARIABLE` left unsubstituted, and
    ///   ``FetchPredicateError/Kind/invalidValue`` for a comparison that cannot be evaluated as built
    ///   (a collection where a single value belongs, say).
    public func sqlExpression(
        columnForKey: (String) -> String?
    ) throws(FetchPredicateError) -> (sql: String, bindings: [AttributeValue]) {
        let result = withoutActuallyEscaping(columnForKey) { columnForKey in
            Result { () throws(FetchPredicateError) -> SQLFragment in
                try SQLCompiler(columnForKey: columnForKey).compile(node)
            }
        }
        let fragment = try result.get()
        return (fragment.sql, fragment.bindings)
    }

    /// A piece of SQL and the values bound to its `?` placeholders, in order; concatenation keeps both aligned.
    struct SQLFragment {
        var sql: String
        var bindings: [AttributeValue]

        init(_ sql: String, _ bindings: [AttributeValue] = []) {
            self.sql = sql
            self.bindings = bindings
        }

        /// A `?` placeholder bound to `value`.
        static func bind(_ value: AttributeValue) -> SQLFragment { SQLFragment("?", [value]) }

        static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
            SQLFragment(lhs.sql + rhs.sql, lhs.bindings + rhs.bindings)
        }

        static func + (lhs: SQLFragment, rhs: String) -> SQLFragment {
            SQLFragment(lhs.sql + rhs, lhs.bindings)
        }

        static func + (lhs: String, rhs: SQLFragment) -> SQLFragment {
            SQLFragment(lhs + rhs.sql, rhs.bindings)
        }

        /// The fragments joined with `separator` and wrapped in parentheses.
        static func group(_ parts: [SQLFragment], separator: String) -> SQLFragment {
            var result = SQLFragment("(")
            for (index, part) in parts.enumerated() {
                if index > 0 { result = result + separator }
                result = result + part
            }
            return result + ")"
        }

        /// SQL's rendering of a truth value known at compile time.
        static func literal(_ truth: Truth) -> SQLFragment {
            switch truth {
            case .true: SQLFragment("1")
            case .false: SQLFragment("0")
            case .unknown: SQLFragment("NULL")
            }
        }
    }

    /// Compiles trees to SQL that reproduces ``ValueComparison``'s semantics exactly.
    ///
    /// The rules that make SQLite agree with memory:
    /// - Equality uses `IS`, which is two-valued like memory's (`NULL IS NULL` is true).
    /// - Every comparison with a column also checks `typeof(column)`, so that values of different storage
    ///   classes never compare equal or ordered, whatever conversions a column's affinity would apply.
    ///   Ordering and string guards admit `'null'`, so that nil stays unknown.
    /// - Folded comparisons call the registered folding functions on the column and bind the constant
    ///   already folded in Swift by the same function.
    /// - String operators use `instr` and `substr` on bytes, never SQL `LIKE` (ASCII-only case folding,
    ///   `%` and `_` wildcards); `LIKE` and `MATCHES` call registered functions that share their code with
    ///   memory evaluation.
    struct SQLCompiler {
        let columnForKey: (String) -> String?

        /// A comparison operand once keys have columns.
        enum SQLOperand {
            case column(String)
            case constant(AttributeValue)
        }

        func compile(_ node: Node) throws(FetchPredicateError) -> SQLFragment {
            switch node {
            case .truePredicate:
                return SQLFragment("1")
            case .falsePredicate:
                return SQLFragment("0")
            case .comparison(let comparison):
                return try compile(comparison)
            case .not(let operand):
                return "(NOT " + (try compile(operand)) + ")"
            case .and(let operands):
                if operands.isEmpty { return SQLFragment("1") }
                var parts: [SQLFragment] = []
                for operand in operands { parts.append(try compile(operand)) }
                return SQLFragment.group(parts, separator: " AND ")
            case .or(let operands):
                if operands.isEmpty { return SQLFragment("0") }
                var parts: [SQLFragment] = []
                for operand in operands { parts.append(try compile(operand)) }
                return SQLFragment.group(parts, separator: " OR ")
            }
        }

        func compile(_ comparison: Comparison) throws(FetchPredicateError) -> SQLFragment {
            // Resolve every key and refuse variables first, left to right, so the first problem is reported.
            var hasColumn = false
            for side in [comparison.left, comparison.right] {
                var failure: FetchPredicateError?
                side.visit { expression in
                    guard failure == nil else { return }
                    switch expression {
                    case .key(let name, let location):
                        if columnForKey(name) == nil { failure = FetchPredicateError.unknownKey(name, at: location) }
                        hasColumn = true
                    case .variable(let name, let location):
                        failure = FetchPredicateError.unsubstitutedVariable(name, at: location)
                    default:
                        break
                    }
                }
                if let failure { throw failure }
            }
            if let problem = comparison.validationProblem() {
                let location = comparison.left.firstLocation ?? comparison.right.firstLocation
                throw FetchPredicateError(
                    kind: .invalidValue, message: problem.message, offset: location?.offset,
                    format: location?.format, reason: problem.reason)
            }
            if !hasColumn {
                // Constants only: the answer is known now.
                return SQLFragment.literal(Evaluator(valueForKey: { _ in .null }).evaluate(comparison))
            }

            let options = comparison.options
            switch (comparison.operation, comparison.left, comparison.right) {
            case (.in, let member, .aggregate(let elements)), (.contains, .aggregate(let elements), let member):
                return try membership(operand(member), elements.map(operand), options: options)
            case (.in, let needle, let haystack):
                return try stringOperation(.contains, operand(haystack), operand(needle), options: options)
            case (.between, let value, .aggregate(let bounds)):
                let subject = try operand(value)
                return SQLFragment.group(
                    [
                        try ordering(.greaterThanOrEqualTo, subject, operand(bounds[0]), options: options),
                        try ordering(.lessThanOrEqualTo, subject, operand(bounds[1]), options: options),
                    ], separator: " AND ")
            case (.equalTo, let left, let right):
                return try equality(operand(left), operand(right), options: options)
            case (.notEqualTo, let left, let right):
                return "(NOT " + (try equality(operand(left), operand(right), options: options)) + ")"
            case (.lessThan, let left, let right), (.lessThanOrEqualTo, let left, let right),
                (.greaterThan, let left, let right), (.greaterThanOrEqualTo, let left, let right):
                return try ordering(comparison.operation, operand(left), operand(right), options: options)
            case (let operation, let left, let right):
                return try stringOperation(operation, operand(left), operand(right), options: options)
            }
        }

        func operand(_ expression: Operand) throws(FetchPredicateError) -> SQLOperand {
            switch expression {
            case .key(let name, let location):
                guard let column = columnForKey(name) else { throw FetchPredicateError.unknownKey(name, at: location) }
                return .column(column)
            case .value(let value):
                return .constant(value)
            case .variable(let name, let location):
                throw FetchPredicateError.unsubstitutedVariable(name, at: location)
            case .aggregate:
                // validationProblem() refuses collections in single-value places before we get here.
                throw FetchPredicateError(kind: .invalidValue, message: "Collection where a single value belongs")
            }
        }

        // MARK: Pieces

        /// `column` as an operand: wrapped in the folding function, or prefixed with `+` (which strips the
        /// column's affinity) when the other operand is a column too.
        static func columnSQL(_ column: String, folding: TextMatching.Folding, plain: Bool = false) -> String {
            if let function = folding.sqlFunctionName { return "\(function)(\(column))" }
            return plain ? column : "+" + column
        }

        /// `typeof(column) IN (…)` for the given storage class (and NULL when `admittingNull`).
        static func typeGuard(_ column: String, _ storageClass: ValueComparison.StorageClass, admittingNull: Bool)
            -> String
        {
            var names = storageClass.sqlTypeNames
            if admittingNull { names.append("null") }
            return "typeof(\(column)) IN (" + names.map { "'\($0)'" }.joined(separator: ", ") + ")"
        }

        /// A number naming the column's storage class, NULL for NULL.
        static func storageClassSQL(_ column: String) -> String {
            "(CASE typeof(\(column)) WHEN 'integer' THEN 1 WHEN 'real' THEN 1"
                + " WHEN 'text' THEN 2 WHEN 'blob' THEN 3 END)"
        }

        static func sqlOperator(_ operation: Operator) -> String {
            switch operation {
            case .lessThan: "<"
            case .lessThanOrEqualTo: "<="
            case .greaterThan: ">"
            default: ">="
            }
        }

        // MARK: Equality (two-valued)

        func equality(_ left: SQLOperand, _ right: SQLOperand, options: ComparisonOptions) -> SQLFragment {
            let folding = TextMatching.Folding(options)
            switch (left, right) {
            case let (.constant(a), .constant(b)):
                return SQLFragment.literal(Truth(ValueComparison.equal(a, b, options: options)))
            case let (.column(column), .constant(value)), let (.constant(value), .column(column)):
                let folded = folding.apply(value)
                if folded.isNull { return SQLFragment("\(column) IS NULL") }
                let storageClass = ValueComparison.StorageClass(folded)
                return "(\(Self.columnSQL(column, folding: folding, plain: true)) IS " + SQLFragment.bind(folded)
                    + " AND \(Self.typeGuard(column, storageClass, admittingNull: false)))"
            case let (.column(a), .column(b)):
                return SQLFragment(
                    "(\(Self.columnSQL(a, folding: folding)) IS \(Self.columnSQL(b, folding: folding))"
                        + " AND \(Self.storageClassSQL(a)) IS \(Self.storageClassSQL(b)))")
            }
        }

        /// `member` equals one of `elements`: constants of one storage class become one `IN (…)` list.
        func membership(_ member: SQLOperand, _ elements: [SQLOperand], options: ComparisonOptions) -> SQLFragment {
            guard case .column(let column) = member else {
                if elements.isEmpty { return SQLFragment("0") }
                return SQLFragment.group(elements.map { equality(member, $0, options: options) }, separator: " OR ")
            }
            let folding = TextMatching.Folding(options)
            var parts: [SQLFragment] = []
            var listed: [ValueComparison.StorageClass: [AttributeValue]] = [:]
            var classOrder: [ValueComparison.StorageClass] = []
            var matchesNull = false
            for element in elements {
                switch element {
                case .column:
                    parts.append(equality(member, element, options: options))
                case .constant(let value):
                    let folded = folding.apply(value)
                    let storageClass = ValueComparison.StorageClass(folded)
                    if storageClass == .null {
                        matchesNull = true
                    } else {
                        if listed[storageClass] == nil { classOrder.append(storageClass) }
                        listed[storageClass, default: []].append(folded)
                    }
                }
            }
            if matchesNull { parts.insert(SQLFragment("\(column) IS NULL"), at: 0) }
            for storageClass in classOrder {
                let values = listed[storageClass] ?? []
                var list = SQLFragment("")
                for (index, value) in values.enumerated() {
                    list = list + (index == 0 ? "" : ", ") + SQLFragment.bind(value)
                }
                parts.append(
                    "(\(Self.columnSQL(column, folding: folding, plain: true)) IN (" + list
                        + ") AND \(Self.typeGuard(column, storageClass, admittingNull: false)))")
            }
            if parts.isEmpty { return SQLFragment("0") }
            return parts.count == 1 ? parts[0] : SQLFragment.group(parts, separator: " OR ")
        }

        // MARK: Ordering (three-valued)

        func ordering(_ operation: Operator, _ left: SQLOperand, _ right: SQLOperand, options: ComparisonOptions)
            -> SQLFragment
        {
            let folding = TextMatching.Folding(options)
            let symbol = Self.sqlOperator(operation)
            switch (left, right) {
            case let (.constant(a), .constant(b)):
                return SQLFragment.literal(ValueComparison.compare(a, operation, b, options: options))
            case let (.column(column), .constant(value)):
                let folded = folding.apply(value)
                if folded.isNull { return SQLFragment("NULL") }
                return "(\(Self.columnSQL(column, folding: folding, plain: true)) \(symbol) " + SQLFragment.bind(folded)
                    + " AND \(Self.typeGuard(column, ValueComparison.StorageClass(folded), admittingNull: true)))"
            case let (.constant(value), .column(column)):
                let folded = folding.apply(value)
                if folded.isNull { return SQLFragment("NULL") }
                return "(" + SQLFragment.bind(folded)
                    + " \(symbol) \(Self.columnSQL(column, folding: folding, plain: true))"
                    + " AND \(Self.typeGuard(column, ValueComparison.StorageClass(folded), admittingNull: true)))"
            case let (.column(a), .column(b)):
                return SQLFragment(
                    "(\(Self.columnSQL(a, folding: folding)) \(symbol) \(Self.columnSQL(b, folding: folding))"
                        + " AND \(Self.storageClassSQL(a)) = \(Self.storageClassSQL(b)))")
            }
        }

        // MARK: String operators (three-valued)

        func stringOperation(
            _ operation: Operator, _ left: SQLOperand, _ right: SQLOperand, options: ComparisonOptions
        ) -> SQLFragment {
            if case .constant(let a) = left, case .constant(let b) = right {
                return SQLFragment.literal(ValueComparison.compare(a, operation, b, options: options))
            }
            // MATCHES folds diacritics only; case is the regular expression's own option.
            let folding =
                operation == .matches
                ? (options.contains(.diacriticInsensitive) ? TextMatching.Folding.unaccent : .none)
                : TextMatching.Folding(options)
            var guards: [String] = []
            var sides: [SQLFragment] = []
            for side in [left, right] {
                switch side {
                case .column(let column):
                    guards.append(Self.typeGuard(column, .text, admittingNull: true))
                    sides.append(SQLFragment(Self.columnSQL(column, folding: folding, plain: true)))
                case .constant(let value):
                    if let text = value.predicateText {
                        sides.append(SQLFragment.bind(.string(folding.apply(text))))
                    } else if value.isNull {
                        sides.append(SQLFragment("NULL"))
                    } else {
                        return SQLFragment("0")
                    }
                }
            }
            let (lhs, rhs) = (sides[0], sides[1])
            let core: SQLFragment
            switch operation {
            case .beginsWith:
                core = "instr(" + lhs + ", " + rhs + ") = 1"
            case .contains:
                core = "instr(" + lhs + ", " + rhs + ") > 0"
            case .endsWith:
                // Byte lengths and byte substrings (as blobs), so that NUL characters and multi-byte
                // characters are handled exactly as in memory. (substr of an empty blob is NULL, hence the
                // separate test for an empty suffix.)
                let lhsBytes = "CAST(" + lhs + " AS BLOB)"
                let rhsBytes = "CAST(" + rhs + " AS BLOB)"
                core =
                    "length(" + lhsBytes + ") >= length(" + rhsBytes + ") AND (length(" + rhsBytes
                    + ") = 0 OR substr(" + lhsBytes + ", length(" + lhsBytes + ") - length(" + rhsBytes + ") + 1) = "
                    + rhsBytes + ")"
            case .like:
                core = "\(PredicateSQLFunctions.likeFunctionName)(" + lhs + ", " + rhs + ")"
            case .matches:
                let flags = options.contains(.caseInsensitive) ? 1 : 0
                core = "\(PredicateSQLFunctions.matchesFunctionName)(" + lhs + ", " + rhs + ", \(flags))"
            default:
                // Only string operators reach here.
                core = SQLFragment("NULL")
            }
            return SQLFragment.group([core] + guards.map { SQLFragment($0) }, separator: " AND ")
        }
    }
}

extension FetchPredicateError {
    static func unknownKey(_ name: String, at location: FetchPredicate.SourceLocation?) -> Self {
        FetchPredicateError(
            kind: .unknownKey, message: "Unknown key '\(name)'", offset: location?.offset, format: location?.format,
            reason: "the entity has no attribute of that name")
    }
}

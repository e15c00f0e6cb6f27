import Foundation

extension FetchPredicate {
    /// Compiles the predicate to an SQL expression for a `WHERE` clause over one flat table, with every value
    /// as a bound parameter.
    ///
    /// `columnForKey` maps a key to the SQL that reads its column (for example `"t0"."ZAGE"`); its result is
    /// used verbatim, so it must come from the model, never from user input. Values from the format string
    /// or its arguments only ever appear as `?` placeholders, bound in order from `bindings` (use
    /// ``AttributeValue/sqliteValue`` to bind them): no argument can change the statement's meaning.
    /// Relationships, `SELF` and collection operators need a store's tables; the SQLite store compiles those
    /// itself.
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
                try SQLCompiler(schema: .flat(columnForKey)).compile(node, in: .init(entity: nil, alias: nil))
            }
        }
        let fragment = try result.get()
        return (fragment.sql, fragment.bindings)
    }

    /// Compiles the predicate for rows of `entity` in a store's tables, the row's table being aliased
    /// `alias`: relationships become correlated subqueries and `EXISTS`, values bound parameters.
    ///
    /// The predicate is validated against the model first (``validate(for:in:)``).
    func sqlExpression(
        for entity: EntityDescription, schema: any PredicateSQLSchema, alias: String
    ) throws(FetchPredicateError) -> SQLFragment {
        try validate(for: entity, in: schema.model)
        return try SQLCompiler(schema: .store(schema)).compile(
            node, in: .init(entity: entity, alias: alias, isPositive: true))
    }

    /// The SQL that reads `keyPath` (attributes through to-one relationships) for a row of `entity` aliased
    /// `alias`, for sorting.
    static func sqlValue(
        of keyPath: String, for entity: EntityDescription, schema: any PredicateSQLSchema, alias: String
    ) throws(FetchPredicateError) -> String {
        let resolved = try ModelChecker(model: schema.model).resolve(keyPath, on: entity, location: nil)
        guard !resolved.isToMany, !resolved.endsInObject else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "Cannot sort by '\(keyPath)'",
                reason: "a sort key must lead through to-one relationships to an attribute of \(entity.name)")
        }
        let compiler = SQLCompiler(schema: .store(schema))
        return try compiler.toOneValue(resolved, in: .init(entity: entity, alias: alias)).sql
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

    /// A comparison operand once keys have SQL.
    enum SQLOperand {
        /// An SQL expression reading the row (a column, or a subquery through relationships).
        case column(SQLFragment)
        case constant(AttributeValue)
        /// An object read from the row: its `Z_PK` and `Z_ENT`, and the entity it belongs to (or descends from).
        case identity(pk: SQLFragment, entity: SQLFragment, destination: EntityDescription)
        /// An object given as a constant.
        case objectConstant(ManagedObjectID)
    }

    /// One side of a comparison: a single operand or a `{…}` list.
    enum SQLSide {
        case single(SQLOperand)
        case list([SQLOperand])
    }

    /// Compiles trees to SQL that reproduces the in-memory evaluator's semantics exactly.
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
    /// - A to-one key path is a correlated subquery on primary keys (NULL when a link is missing); a to-many
    ///   one is an `EXISTS` (two-valued, as `ANY`, `ALL` and `NONE` are in memory); collection operators are
    ///   aggregate subqueries, `@sum` and `@avg` through registered functions that add in a fixed order.
    struct SQLCompiler {
        /// Where keys are read from.
        enum Schema {
            /// One table; keys map to columns through a closure; no relationships.
            case flat((String) -> String?)
            /// A store's tables, by entity.
            case store(any PredicateSQLSchema)
        }

        /// The row a (sub)expression reads: its entity and table alias (nil for a flat table).
        struct Scope {
            let entity: EntityDescription?
            let alias: String?
            /// Whether only "true or not true" of the expression matters here: the top of a `WHERE` clause and
            /// what `AND` and `OR` lead to from there (never under `NOT`, and never in a subquery). A text index
            /// test may then answer false where the scan answers NULL, in a form SQLite can look rows up with.
            var isPositive = false
        }

        let schema: Schema
        /// Hands out table aliases (`t1`, `t2`, …) for subqueries; shared by copies of the compiler.
        let aliases = AliasCounter()

        final class AliasCounter {
            private var next = 1
            func make(_ prefix: String) -> String {
                defer { next += 1 }
                return "\(prefix)\(next)"
            }
        }

        func compile(_ node: Node, in scope: Scope) throws(FetchPredicateError) -> SQLFragment {
            switch node {
            case .truePredicate:
                return SQLFragment("1")
            case .falsePredicate:
                return SQLFragment("0")
            case .comparison(let comparison):
                return try compile(comparison, in: scope)
            case .not(let operand):
                let negated = Scope(entity: scope.entity, alias: scope.alias)
                return "(NOT " + (try compile(operand, in: negated)) + ")"
            case .and(let operands):
                if operands.isEmpty { return SQLFragment("1") }
                var parts: [SQLFragment] = []
                for operand in operands { parts.append(try compile(operand, in: scope)) }
                return SQLFragment.group(parts, separator: " AND ")
            case .or(let operands):
                if operands.isEmpty { return SQLFragment("0") }
                if let indexed = try textIndexedDisjunction(operands, in: scope) { return indexed }
                var parts: [SQLFragment] = []
                for operand in operands { parts.append(try compile(operand, in: scope)) }
                return SQLFragment.group(parts, separator: " OR ")
            }
        }

        /// A comparison; through the text search index where it can use one, unless `usingTextIndex` is false.
        func compile(_ comparison: Comparison, in scope: Scope, usingTextIndex: Bool = true)
            throws(FetchPredicateError) -> SQLFragment
        {
            try checkOperands(comparison)
            if let problem = comparison.validationProblem() {
                let location = comparison.left.firstLocation ?? comparison.right.firstLocation
                throw FetchPredicateError(
                    kind: .invalidValue, message: problem.message, offset: location?.offset,
                    format: location?.format, reason: problem.reason)
            }
            if !Self.readsRow(comparison) {
                // Constants only: the answer is known now.
                return SQLFragment.literal(Evaluator(subject: KeyValueSubject { _ in .null }).evaluate(comparison))
            }
            let operation = comparison.operation
            let options = comparison.options.effective
            if comparison.modifier != .direct { return try quantified(comparison, in: scope) }
            if case .key(let path, let location) = comparison.left,
                let collection = try toManyPath(path, in: scope, location: location)
            {
                // `tags.name CONTAINS x` looks for x among the names; other operators hold for any element.
                let right = try side(comparison.right, in: scope)
                return try exists(.any, collection, in: scope) { element throws(FetchPredicateError) in
                    try compareSides(operation == .contains ? .equalTo : operation, .single(element), right, options)
                }
            }
            if case .key(let path, let location) = comparison.right,
                let collection = try toManyPath(path, in: scope, location: location)
            {
                // `x IN tags.name` looks for x among the names; other operators hold for any element.
                let left = try side(comparison.left, in: scope)
                return try exists(.any, collection, in: scope) { element throws(FetchPredicateError) in
                    try compareSides(operation == .in ? .equalTo : operation, left, .single(element), options)
                }
            }
            let exact = try compareSides(
                operation, side(comparison.left, in: scope), side(comparison.right, in: scope), options)
            return usingTextIndex ? textIndexed(comparison, exact, in: scope) ?? exact : exact
        }

        /// Refuses unsubstituted variables and, for a flat table, unknown keys, left to right, so that the
        /// first problem is the one reported.
        func checkOperands(_ comparison: Comparison) throws(FetchPredicateError) {
            for side in [comparison.left, comparison.right] {
                var failure: FetchPredicateError?
                side.visit(includingSubqueries: false) { expression in
                    guard failure == nil else { return }
                    switch expression {
                    case .key(let name, let location):
                        if case .flat(let columnForKey) = schema, columnForKey(name) == nil {
                            failure = FetchPredicateError.unknownKey(name, at: location)
                        }
                    case .variable(let name, let location):
                        failure = FetchPredicateError.unsubstitutedVariable(name, at: location)
                    default:
                        break
                    }
                }
                if let failure { throw failure }
            }
        }

        /// Whether the comparison reads anything from the row (otherwise its answer is a constant).
        static func readsRow(_ comparison: Comparison) -> Bool {
            var reads = false
            for side in [comparison.left, comparison.right] {
                side.visit(includingSubqueries: false) { expression in
                    switch expression {
                    case .key, .evaluatedObject, .collectionOperation, .element: reads = true
                    default: break
                    }
                }
            }
            return reads
        }

        /// `ANY`/`ALL`/`NONE` over a to-many key path (an `EXISTS`) or over a `{…}` list.
        func quantified(_ comparison: Comparison, in scope: Scope) throws(FetchPredicateError) -> SQLFragment {
            let right = try side(comparison.right, in: scope)
            let options = comparison.options.effective
            switch comparison.left {
            case .key(let path, let location):
                guard let collection = try toManyPath(path, in: scope, location: location) else {
                    throw FetchPredicateError(
                        kind: .invalidValue, message: "\(comparison.modifier.rawValue) without a collection",
                        offset: location?.offset, format: location?.format,
                        reason: "\(comparison.modifier.rawValue) needs a key path through a to-many relationship")
                }
                return try exists(comparison.modifier, collection, in: scope) { element throws(FetchPredicateError) in
                    try compareSides(comparison.operation, .single(element), right, options)
                }
            case .aggregate(let elements):
                var parts: [SQLFragment] = []
                for element in elements {
                    let test = try compareSides(comparison.operation, .single(operand(element, in: scope)), right, options)
                    parts.append("coalesce(" + test + ", 0)")
                }
                switch comparison.modifier {
                case .all:
                    return parts.isEmpty ? SQLFragment("1") : SQLFragment.group(parts, separator: " AND ")
                case .none:
                    return parts.isEmpty ? SQLFragment("1") : "(NOT " + SQLFragment.group(parts, separator: " OR ") + ")"
                default:
                    return parts.isEmpty ? SQLFragment("0") : SQLFragment.group(parts, separator: " OR ")
                }
            default:
                throw FetchPredicateError(
                    kind: .invalidValue, message: "\(comparison.modifier.rawValue) without a collection",
                    reason: "\(comparison.modifier.rawValue) needs a to-many key path or a collection on its left")
            }
        }

        func side(_ expression: Operand, in scope: Scope) throws(FetchPredicateError) -> SQLSide {
            if case .aggregate(let elements) = expression {
                var operands: [SQLOperand] = []
                for element in elements { operands.append(try operand(element, in: scope)) }
                return .list(operands)
            }
            return .single(try operand(expression, in: scope))
        }

        func operand(_ expression: Operand, in scope: Scope) throws(FetchPredicateError) -> SQLOperand {
            switch expression {
            case .key(let path, let location):
                return try keyPathOperand(path, in: scope, location: location)
            case .value(let value):
                return .constant(value)
            case .object(let id):
                return .objectConstant(id)
            case .evaluatedObject:
                guard let entity = scope.entity, let alias = scope.alias else {
                    throw FetchPredicateError(
                        kind: .unsupported, message: "SELF not supported here", reason: "SELF needs a store's tables")
                }
                return .identity(pk: SQLFragment("\(alias).Z_PK"), entity: SQLFragment("\(alias).Z_ENT"), destination: entity)
            case .collectionOperation(let operation, let location):
                return .column(try collectionValue(operation, in: scope, location: location))
            case .variable(let name, let location):
                throw FetchPredicateError.unsubstitutedVariable(name, at: location)
            case .arithmetic(let arithmetic):
                return try arithmeticOperand(arithmetic, in: scope)
            case .function(let call):
                return try functionOperand(call, in: scope)
            case .element(let index, let location):
                return try elementOperand(index, in: scope, location: location)
            case .aggregate:
                // validationProblem() refuses collections in single-value places before we get here.
                throw FetchPredicateError(kind: .invalidValue, message: "Collection where a single value belongs")
            }
        }

        /// The comparison of two compiled sides, by operator.
        func compareSides(
            _ operation: Operator, _ left: SQLSide, _ right: SQLSide, _ options: ComparisonOptions
        ) throws(FetchPredicateError) -> SQLFragment {
            switch (operation, left, right) {
            case (.in, .single(let member), .list(let elements)), (.contains, .list(let elements), .single(let member)):
                return membership(member, elements, options: options)
            case (.in, .single(let needle), .single(let haystack)):
                return stringOperation(.contains, haystack, needle, options: options)
            case (.between, .single(let value), .list(let bounds)) where bounds.count == 2:
                return SQLFragment.group(
                    [
                        ordering(.greaterThanOrEqualTo, value, bounds[0], options: options),
                        ordering(.lessThanOrEqualTo, value, bounds[1], options: options),
                    ], separator: " AND ")
            case (.equalTo, .single(let left), .single(let right)):
                return equality(left, right, options: options)
            case (.notEqualTo, .single(let left), .single(let right)):
                return "(NOT " + equality(left, right, options: options) + ")"
            case (.lessThan, .single(let left), .single(let right)), (.lessThanOrEqualTo, .single(let left), .single(let right)),
                (.greaterThan, .single(let left), .single(let right)),
                (.greaterThanOrEqualTo, .single(let left), .single(let right)):
                return ordering(operation, left, right, options: options)
            case (_, .single(let left), .single(let right)) where operation != .between:
                return stringOperation(operation, left, right, options: options)
            default:
                throw FetchPredicateError(
                    kind: .invalidValue, message: "Collection used with \(operation.rawValue)",
                    reason: "a collection can only be used with IN, BETWEEN, ANY/ALL/NONE, or on the left of CONTAINS")
            }
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

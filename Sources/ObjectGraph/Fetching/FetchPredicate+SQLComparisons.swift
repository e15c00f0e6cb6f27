import Foundation

// The SQL for each kind of comparison between compiled operands.

extension FetchPredicate.SQLCompiler {
    typealias SQLFragment = FetchPredicate.SQLFragment
    typealias SQLOperand = FetchPredicate.SQLOperand
    typealias ValueComparison = FetchPredicate.ValueComparison
    typealias Truth = FetchPredicate.Truth
    typealias Folding = FetchPredicate.TextMatching.Folding

    // MARK: Pieces

    /// `column` as an operand: wrapped in the folding function, or prefixed with `+` (which strips the
    /// column's affinity) when the other operand is a column too.
    static func columnSQL(_ column: SQLFragment, folding: Folding, plain: Bool = false) -> SQLFragment {
        if let function = folding.sqlFunctionName { return "\(function)(" + column + ")" }
        return plain ? column : "+" + column
    }

    /// `typeof(column) IN (…)` for the given storage class (and NULL when `admittingNull`).
    static func typeGuard(
        _ column: SQLFragment, _ storageClass: ValueComparison.StorageClass, admittingNull: Bool
    ) -> SQLFragment {
        var names = storageClass.sqlTypeNames
        if admittingNull { names.append("null") }
        return "typeof(" + column + ") IN (" + names.map { "'\($0)'" }.joined(separator: ", ") + ")"
    }

    /// A number naming the column's storage class, NULL for NULL.
    static func storageClassSQL(_ column: SQLFragment) -> SQLFragment {
        "(CASE typeof(" + column + ") WHEN 'integer' THEN 1 WHEN 'real' THEN 1"
            + " WHEN 'text' THEN 2 WHEN 'blob' THEN 3 END)"
    }

    static func sqlOperator(_ operation: FetchPredicate.Operator) -> String {
        switch operation {
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        default: ">="
        }
    }

    // MARK: Equality (two-valued)

    func equality(_ left: SQLOperand, _ right: SQLOperand, options: FetchPredicate.ComparisonOptions) -> SQLFragment {
        let folding = Folding(options)
        switch (left, right) {
        case (.identity, _), (_, .identity), (.objectConstant, _), (_, .objectConstant):
            return objectEquality(left, right)
        case let (.constant(a), .constant(b)):
            return SQLFragment.literal(Truth(ValueComparison.equal(a, b, options: options)))
        case let (.column(column), .constant(value)), let (.constant(value), .column(column)):
            let folded = folding.apply(value)
            if folded.isNull { return column + " IS NULL" }
            let storageClass = ValueComparison.StorageClass(folded)
            return "(" + Self.columnSQL(column, folding: folding, plain: true) + " IS " + SQLFragment.bind(folded)
                + " AND " + Self.typeGuard(column, storageClass, admittingNull: false) + ")"
        case let (.column(a), .column(b)):
            return "(" + Self.columnSQL(a, folding: folding) + " IS " + Self.columnSQL(b, folding: folding)
                + " AND " + Self.storageClassSQL(a) + " IS " + Self.storageClassSQL(b) + ")"
        }
    }

    /// Equality where an object takes part: objects are equal when they are the same row; an object equals
    /// no value, and a missing object (a nil relationship) equals nil.
    func objectEquality(_ left: SQLOperand, _ right: SQLOperand) -> SQLFragment {
        switch (left, right) {
        case let (.identity(a, aEntity, _), .identity(b, bEntity, _)):
            return "(" + a + " IS " + b + " AND (" + a + " IS NULL OR " + aEntity + " IS " + bEntity + "))"
        case let (.identity(pk, entity, destination), .objectConstant(id)),
            let (.objectConstant(id), .identity(pk, entity, destination)):
            guard let (key, number) = rowIdentity(of: id, within: destination) else { return SQLFragment("0") }
            return "(" + pk + " IS " + SQLFragment.bind(.integer(key)) + " AND " + entity + " IS "
                + SQLFragment.bind(.integer(Int64(number))) + ")"
        case let (.identity(pk, _, _), .constant(value)), let (.constant(value), .identity(pk, _, _)):
            return value.isNull ? pk + " IS NULL" : SQLFragment("0")
        case let (.identity(pk, _, _), .column(column)), let (.column(column), .identity(pk, _, _)):
            return "(" + pk + " IS NULL AND " + column + " IS NULL)"
        case let (.objectConstant(a), .objectConstant(b)):
            return SQLFragment.literal(Truth(a == b))
        default:
            // An object constant and a value (nil included) are never equal.
            return SQLFragment("0")
        }
    }

    /// The primary key and entity number a stored row of `destination` (or of a sub-entity) has for `id`;
    /// nil when no row of this store can have that ID (a temporary ID, another store, another entity).
    func rowIdentity(of id: ManagedObjectID, within destination: EntityDescription) -> (Int64, Int)? {
        guard case .store(let schema) = schema, let key = id.primaryKey, id.storeIdentifier == schema.storeIdentifier,
            let entity = schema.model.entity(named: id.entityName),
            schema.model.entityAndDescendants(of: destination).contains(entity)
        else { return nil }
        return (key, schema.model.entityNumber(of: entity))
    }

    /// An object (`SELF`, a to-one relationship) is one of `elements`: the object constants become one
    /// `Z_ENT IS n AND Z_PK IN (…)` per entity — `SELF IN %@` with thousands of objects is one list lookup, not an
    /// `OR` of thousands of comparisons (SQLite refuses an expression tree deeper than 1000).
    private func objectMembership(
        pk: SQLFragment, entity: SQLFragment, destination: EntityDescription, _ elements: [SQLOperand],
        options: FetchPredicate.ComparisonOptions
    ) -> SQLFragment {
        var parts: [SQLFragment] = []
        var keysByEntity: [Int: [Int64]] = [:]
        var entityOrder: [Int] = []
        for element in elements {
            guard case .objectConstant(let id) = element else {
                parts.append(equality(.identity(pk: pk, entity: entity, destination: destination), element,
                    options: options))
                continue
            }
            // (An ID no row of this store can have matches nothing.)
            guard let (key, number) = rowIdentity(of: id, within: destination) else { continue }
            if keysByEntity[number] == nil { entityOrder.append(number) }
            keysByEntity[number, default: []].append(key)
        }
        for number in entityOrder {
            var list = ""
            for key in keysByEntity[number] ?? [] {
                if !list.isEmpty { list += ", " }
                list += String(key)
            }
            // (Two-valued, as every comparison here: a missing object is simply not in the list.)
            parts.append("(" + entity + " IS " + SQLFragment.bind(.integer(Int64(number))) + " AND " + pk
                + " IS NOT NULL AND " + pk + " IN (" + SQLFragment(list) + "))")
        }
        if parts.isEmpty { return SQLFragment("0") }
        return parts.count == 1 ? parts[0] : SQLFragment.group(parts, separator: " OR ")
    }

    /// `member` equals one of `elements`: constants of one storage class become one `IN (…)` list.
    func membership(
        _ member: SQLOperand, _ elements: [SQLOperand], options: FetchPredicate.ComparisonOptions
    ) -> SQLFragment {
        if case .identity(let pk, let entity, let destination) = member {
            return objectMembership(pk: pk, entity: entity, destination: destination, elements, options: options)
        }
        guard case .column(let column) = member else {
            if elements.isEmpty { return SQLFragment("0") }
            return SQLFragment.group(elements.map { equality(member, $0, options: options) }, separator: " OR ")
        }
        let folding = Folding(options)
        var parts: [SQLFragment] = []
        var listed: [ValueComparison.StorageClass: [AttributeValue]] = [:]
        var classOrder: [ValueComparison.StorageClass] = []
        var matchesNull = false
        for element in elements {
            guard case .constant(let value) = element else {
                parts.append(equality(member, element, options: options))
                continue
            }
            let folded = folding.apply(value)
            let storageClass = ValueComparison.StorageClass(folded)
            if storageClass == .null {
                matchesNull = true
            } else {
                if listed[storageClass] == nil { classOrder.append(storageClass) }
                listed[storageClass, default: []].append(folded)
            }
        }
        if matchesNull { parts.insert(column + " IS NULL", at: 0) }
        for storageClass in classOrder {
            let values = listed[storageClass] ?? []
            var list = SQLFragment("")
            for (index, value) in values.enumerated() {
                list = list + (index == 0 ? "" : ", ") + SQLFragment.bind(value)
            }
            parts.append(
                "(" + Self.columnSQL(column, folding: folding, plain: true) + " IN (" + list + ") AND "
                    + Self.typeGuard(column, storageClass, admittingNull: false) + ")")
        }
        if parts.isEmpty { return SQLFragment("0") }
        return parts.count == 1 ? parts[0] : SQLFragment.group(parts, separator: " OR ")
    }

    // MARK: Ordering (three-valued)

    func ordering(
        _ operation: FetchPredicate.Operator, _ left: SQLOperand, _ right: SQLOperand,
        options: FetchPredicate.ComparisonOptions
    ) -> SQLFragment {
        let folding = Folding(options)
        let symbol = Self.sqlOperator(operation)
        switch (left, right) {
        case let (.constant(a), .constant(b)):
            return SQLFragment.literal(ValueComparison.compare(a, operation, b, options: options))
        case let (.column(column), .constant(value)):
            let folded = folding.apply(value)
            if folded.isNull { return SQLFragment("NULL") }
            return "(" + Self.columnSQL(column, folding: folding, plain: true) + " \(symbol) " + SQLFragment.bind(folded)
                + " AND " + Self.typeGuard(column, ValueComparison.StorageClass(folded), admittingNull: true) + ")"
        case let (.constant(value), .column(column)):
            let folded = folding.apply(value)
            if folded.isNull { return SQLFragment("NULL") }
            return "(" + SQLFragment.bind(folded) + " \(symbol) " + Self.columnSQL(column, folding: folding, plain: true)
                + " AND " + Self.typeGuard(column, ValueComparison.StorageClass(folded), admittingNull: true) + ")"
        case let (.column(a), .column(b)):
            return "(" + Self.columnSQL(a, folding: folding) + " \(symbol) " + Self.columnSQL(b, folding: folding)
                + " AND " + Self.storageClassSQL(a) + " = " + Self.storageClassSQL(b) + ")"
        default:
            // Objects have no order (the model check refuses this; memory says false too).
            return SQLFragment("0")
        }
    }

    // MARK: String operators (three-valued)

    func stringOperation(
        _ operation: FetchPredicate.Operator, _ left: SQLOperand, _ right: SQLOperand,
        options: FetchPredicate.ComparisonOptions
    ) -> SQLFragment {
        if case .constant(let a) = left, case .constant(let b) = right {
            return SQLFragment.literal(ValueComparison.compare(a, operation, b, options: options))
        }
        // MATCHES folds diacritics only; case is the regular expression's own option.
        let folding =
            operation == .matches
            ? (options.contains(.diacriticInsensitive) ? Folding.unaccent : .none)
            : Folding(options)
        if let call = Self.foldedAffixMatch(operation, left, right, folding: folding) { return call }
        var guards: [SQLFragment] = []
        var sides: [SQLFragment] = []
        for side in [left, right] {
            switch side {
            case .column(let column):
                guards.append(Self.typeGuard(column, .text, admittingNull: true))
                sides.append(Self.columnSQL(column, folding: folding, plain: true))
            case .constant(let value):
                if let text = value.predicateText {
                    sides.append(SQLFragment.bind(.string(folding.apply(text))))
                } else if value.isNull {
                    sides.append(SQLFragment("NULL"))
                } else {
                    return SQLFragment("0")
                }
            case .identity, .objectConstant:
                // Objects are not strings (memory says false).
                return SQLFragment("0")
            }
        }
        let core = Self.textOperationCore(operation, sides[0], sides[1], options: options)
        return SQLFragment.group([core] + guards, separator: " AND ")
    }

    /// The test of a string operator on two text operands already folded as the options ask: 1 or 0, NULL
    /// when either side is NULL.
    static func textOperationCore(
        _ operation: FetchPredicate.Operator, _ lhs: SQLFragment, _ rhs: SQLFragment,
        options: FetchPredicate.ComparisonOptions
    ) -> SQLFragment {
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
        return core
    }
}

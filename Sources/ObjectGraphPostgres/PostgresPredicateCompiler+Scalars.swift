import Foundation
import ObjectGraph

// Comparisons of single values (memory's `ValueComparison`), exactly or not at all.
extension PostgresPredicateCompiler {
    /// A comparison of two single sides; nil when it has no exact translation.
    mutating func scalar(_ operation: FetchPredicate.Operator, _ left: Side, _ right: Side,
        options: FetchPredicate.ComparisonOptions) -> String?
    {
        switch (left, right) {
        case (.row, _), (.object, _), (.toOne, _), (_, .row), (_, .object), (_, .toOne):
            return objectComparison(operation, left, right)
        default: break
        }
        switch operation {
        case .beginsWith, .endsWith, .contains, .like:
            return textTest(operation, left, right, options: options)
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            switch (left, right) {
            case (.column(let column), .constant(let value)):
                return valueComparison(column, operation, value, options: options, columnOnLeft: true)
            case (.constant(let value), .column(let column)):
                return valueComparison(column, Self.mirrored(operation), value, options: options, columnOnLeft: false)
            default: return nil
            }
        case .matches, .in, .between: return nil
        }
    }

    /// The operator with its sides swapped (`5 < age` is `age > 5`).
    static func mirrored(_ operation: FetchPredicate.Operator) -> FetchPredicate.Operator {
        switch operation {
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: operation
        }
    }

    // MARK: Objects

    /// Objects are equal when their IDs are and never equal to a value; they have no order. A to-one relationship
    /// without a destination is nil.
    private mutating func objectComparison(_ operation: FetchPredicate.Operator, _ left: Side, _ right: Side) -> String? {
        let equal: String
        switch (left, right) {
        case (.row, .object(let id)), (.object(let id), .row):
            equal = key(of: id).map { #"(\#(Self.rowAlias)."Z_PK" = \#(bind(String($0), as: "bigint")))"# } ?? "FALSE"
        case (.row, .constant), (.constant, .row):
            equal = "FALSE"
        case (.toOne(let column), .object(let id)), (.object(let id), .toOne(let column)):
            guard id.storeIdentifier == storeIdentifier, !id.isTemporaryID, let key = id.primaryKey else {
                equal = "FALSE"
                break
            }
            equal = "COALESCE(\(column) = \(bind("\(id.entityName)/\(key)", as: "text")), FALSE)"
        case (.toOne(let column), .constant(.null)), (.constant(.null), .toOne(let column)):
            equal = "(\(column) IS NULL)"
        case (.toOne, .constant), (.constant, .toOne):
            equal = "FALSE"
        default:
            return nil
        }
        switch operation {
        case .equalTo, .in, .contains: return equal
        case .notEqualTo: return "(NOT \(equal))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            // nil compared in order is unknown; an object in order is false.
            if case .toOne = left { return nil }
            if case .toOne = right { return nil }
            return "FALSE"
        default: return nil
        }
    }

    /// The primary key of `id` when it names a saved row of the table being compiled for.
    private func key(of id: ManagedObjectID) -> Int64? {
        guard id.storeIdentifier == storeIdentifier, !id.isTemporaryID, id.entityName == entityName else { return nil }
        return id.primaryKey
    }

    // MARK: Values

    /// `column operation value`, with memory's truth values: equality two-valued, order unknown with nil.
    /// `columnOnLeft` tells whether the predicate was written that way round (the operator is already mirrored when
    /// not): memory's order of NaN depends on it.
    private mutating func valueComparison(_ column: Column, _ operation: FetchPredicate.Operator, _ value: AttributeValue,
        options: FetchPredicate.ComparisonOptions, columnOnLeft: Bool) -> String?
    {
        let ordering = operation != .equalTo && operation != .notEqualTo
        if value.isNull {
            switch operation {
            case .equalTo: return "(\(column.sql) IS NULL)"
            case .notEqualTo: return "(\(column.sql) IS NOT NULL)"
            default: return "(NULL::boolean)"
            }
        }
        if let order = fixedOrder(of: column, against: value, options: options) {
            // (Memory places NaN above a real whichever side it is on, so seen from a real column on the right the
            // order turns round.)
            // (Decimals compare as reals in memory, so they turn round too.)
            let seen = !columnOnLeft && (column.isReal || column.type == .decimal) ? order.map { -$0 } : order
            return fixedComparison(column.sql, operation, order: seen)
        }
        if let fraction = Self.fraction(value), column.isInteger {
            // An integer never equals a fraction, and compares with it as with the fraction's floor.
            switch operation {
            case .equalTo: return "FALSE"
            case .notEqualTo: return "TRUE"
            case .lessThan, .lessThanOrEqualTo: return "(\(column.integerSQL) <= \(bind(String(fraction), as: "int8")))"
            default: return "(\(column.integerSQL) > \(bind(String(fraction), as: "int8")))"
            }
        }
        guard let (sql, constant, nanGuard) = operands(column, value, options: options, ordering: ordering) else {
            return nil
        }
        let symbol: String
        switch operation {
        case .equalTo: symbol = "="
        case .notEqualTo: symbol = "<>"
        case .lessThan: symbol = "<"
        case .lessThanOrEqualTo: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqualTo: symbol = ">="
        default: return nil
        }
        var core = "\(sql) \(symbol) \(constant)"
        // Memory's order of a NaN row: above a real constant written on its right, otherwise below (PostgreSQL
        // places NaN above every number).
        if nanGuard || (!columnOnLeft && column.isReal) {
            let answer: Bool
            switch operation {
            case .lessThan, .lessThanOrEqualTo, .notEqualTo: answer = true
            default: answer = false
            }
            core = "(CASE WHEN \(sql) = 'NaN'::float8 THEN \(answer ? "TRUE" : "FALSE") ELSE \(core) END)"
        }
        switch operation {
        case .equalTo: return "(\(sql) IS NOT NULL AND \(core))"
        case .notEqualTo: return "(\(sql) IS NULL OR \(core))"
        default: return "(\(core))"
        }
    }

    /// Memory's order of every non-nil value of `column` against `value` when it is the same for all of them: `nil`
    /// (`.some(nil)`) for values of another storage class, which are neither equal nor ordered; `1` for NaN, above
    /// which memory places every number; `-1`/`1` for infinities and reals beyond 64 bits against integers.
    private func fixedOrder(of column: Column, against value: AttributeValue, options: FetchPredicate.ComparisonOptions)
        -> Int??
    {
        let columnClass: Int
        switch column.type {
        case .string, .uri: columnClass = 2
        case .binary, .uuid, .transformable: columnClass = 3
        default: columnClass = 1
        }
        let valueClass: Int
        switch value {
        case .null: return nil
        case .string, .uri: valueClass = 2
        case .binary, .uuid: valueClass = 3
        default: valueClass = 1
        }
        if columnClass != valueClass { return .some(nil) }
        guard case .real(let number)? = Self.number(value) else { return nil }
        if number.isNaN { return 1 }
        if column.isInteger, !(abs(number) < 9.0e18) { return number > 0 ? -1 : 1 }
        return nil
    }

    /// `column operation constant` when every non-nil value of the column stands in `order` to the constant (see
    /// ``fixedOrder(of:against:options:)``): equality two-valued, order unknown for nil.
    private func fixedComparison(_ column: String, _ operation: FetchPredicate.Operator, order: Int?) -> String? {
        let holds: Bool
        switch operation {
        case .equalTo: return "FALSE"
        case .notEqualTo: return "TRUE"
        case .lessThan: holds = order.map { $0 < 0 } ?? false
        case .lessThanOrEqualTo: holds = order.map { $0 <= 0 } ?? false
        case .greaterThan: holds = order.map { $0 > 0 } ?? false
        case .greaterThanOrEqualTo: holds = order.map { $0 >= 0 } ?? false
        default: return nil
        }
        return "(CASE WHEN \(column) IS NULL THEN NULL::boolean ELSE \(holds ? "TRUE" : "FALSE") END)"
    }

    /// The floor of a finite real within 64 bits that is not a whole number.
    static func fraction(_ value: AttributeValue) -> Int64? {
        guard case .real(let number)? = number(value), number.isFinite, abs(number) < 9.0e18,
            number.rounded() != number
        else { return nil }
        return Int64(number.rounded(.down))
    }

    /// The column's SQL and the bound constant for comparing `column` with the non-nil `value`, and whether NaN rows
    /// take memory's answer for an integer constant (`nanGuard`); nil when the pair has no exact translation.
    private mutating func operands(_ column: Column, _ value: AttributeValue, options: FetchPredicate.ComparisonOptions,
        ordering: Bool) -> (sql: String, constant: String, nanGuard: Bool)?
    {
        switch column.type {
        case .string, .uri:
            guard let text = value.stringLike else { return nil }
            switch Folding(options) {
            case .none: return (column.sql, bind(text, as: "text"), false)
            case .fold:
                guard let folded = column.folded else { return nil }
                return (folded, bind(StringFolding.folded(text), as: "text"), false)
            case .other: return nil
            }
        case .integer16, .integer32, .integer64, .boolean:
            let sql = column.integerSQL
            switch Self.number(value) {
            case .integer(let number)?: return (sql, bind(String(number), as: "int8"), false)
            case .real(let number)?:
                // (An integral real compares with an integer as that integer does; fractions are left to memory.)
                guard number.isFinite, abs(number) < 9.0e18, number.rounded() == number else { return nil }
                return (sql, bind(String(Int64(number)), as: "int8"), false)
            case nil: return nil
            }
        case .double, .float, .date:
            switch Self.number(value) {
            case .integer(let number)?:
                guard abs(number) <= 1 << 53 else { return nil }  // (PostgreSQL would round it to a double)
                return (column.sql, bind(String(number), as: "float8"), true)
            case .real(let number)?:
                guard !number.isNaN else { return nil }
                return (column.sql, bind(PostgresValueCoding.encode(value, as: .double), as: "float8"), false)
            case nil: return nil
            }
        case .uuid:
            guard !ordering, case .uuid = value else { return nil }
            return (column.sql, bind(PostgresValueCoding.encode(value, as: .uuid), as: "uuid"), false)
        case .binary:
            guard !ordering, case .binary = value else { return nil }
            return (column.sql, bind(PostgresValueCoding.encode(value, as: .binary), as: "bytea"), false)
        case .decimal, .transformable, .undefined, .composite:
            return nil
        }
    }

    /// A number as memory compares it: integers (Booleans as 0 or 1) and reals (dates as seconds since 2001).
    enum Number {
        case integer(Int64)
        case real(Double)
    }

    static func number(_ value: AttributeValue) -> Number? {
        switch value {
        case .integer(let number): .integer(number)
        case .boolean(let flag): .integer(flag ? 1 : 0)
        case .double(let number): .real(number)
        case .date(let date): .real(date.timeIntervalSinceReferenceDate)
        default: nil
        }
    }

    /// The string folding a comparison's options ask for, as far as the server has it.
    enum Folding {
        case none, fold, other

        init(_ options: FetchPredicate.ComparisonOptions) {
            let bits = PostgresPredicateCompiler.effective(options).rawValue
            let c = bits & FetchPredicate.ComparisonOptions.caseInsensitive.rawValue != 0
            let d = bits & FetchPredicate.ComparisonOptions.diacriticInsensitive.rawValue != 0
            self = c && d ? .fold : (c || d ? .other : .none)
        }
    }

    // MARK: Text

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE`: byte tests on (folded) UTF-8, as memory's.
    private mutating func textTest(_ operation: FetchPredicate.Operator, _ left: Side, _ right: Side,
        options: FetchPredicate.ComparisonOptions) -> String?
    {
        let folding = Folding(options)
        guard folding != .other else { return nil }
        // A non-nil value that is not text makes the test false, whatever the other side is.
        for case .constant(let value) in [left, right] where !value.isNull && value.stringLike == nil {
            return "FALSE"
        }
        if operation == .like {
            guard case .constant(let patternValue) = right else { return nil }
            guard let text = textSQL(left, folding: folding) else { return nil }
            guard let pattern = patternValue.stringLike else { return "(\(text) LIKE NULL::text)" }
            let folded = folding == .fold ? StringFolding.folded(pattern) : pattern
            return "(\(text) LIKE \(bind(Self.likePattern(folded), as: "text")))"
        }
        // A constant needle is a LIKE pattern (the same test, per code point): a trigram index on the folded column
        // can answer it (PostgresTextIndexes).
        if case .constant(let value) = right, let needle = value.stringLike,
            [.beginsWith, .contains, .endsWith].contains(operation), let text = textSQL(left, folding: folding)
        {
            let literal = Self.likeLiteral(folding == .fold ? StringFolding.folded(needle) : needle)
            let pattern = operation == .beginsWith ? literal + "%" : operation == .endsWith ? "%" + literal : "%\(literal)%"
            return "(\(text) LIKE \(bind(pattern, as: "text")))"
        }
        guard let text = textSQL(left, folding: folding), let needle = textSQL(right, folding: folding) else {
            return nil
        }
        switch operation {
        case .beginsWith: return "starts_with(\(text), \(needle))"
        case .contains: return "(strpos(\(text), \(needle)) > 0)"
        case .endsWith: return "(right(\(text), char_length(\(needle))) = \(needle))"
        default: return nil
        }
    }

    /// The text a side gives a text test: a string or URL column (its folded twin for `[cd]`), or a constant folded
    /// in Swift.
    private mutating func textSQL(_ side: Side, folding: Folding) -> String? {
        switch side {
        case .column(let column):
            switch column.type {
            case .string: return folding == .fold ? column.folded : column.sql
            case .uri: return folding == .fold ? nil : column.sql
            default: return nil
            }
        case .constant(let value):
            guard let text = value.stringLike else { return "NULL::text" }
            return bind(folding == .fold ? StringFolding.folded(text) : text, as: "text")
        default: return nil
        }
    }

    /// `text` as a `LIKE` pattern that matches exactly it (`%`, `_` and `\` escaped).
    static func likeLiteral(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { result.append("\\") }
            result.append(scalar)
        }
        return String(result)
    }

    /// A `LIKE` pattern of memory's (`*` any run, `?` one character, `\` makes the next character literal) in
    /// PostgreSQL's syntax (`%`, `_`, `\` as escape), per Unicode scalar as both match.
    static func likePattern(_ pattern: String) -> String {
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                if scalar == "%" || scalar == "_" || scalar == "\\" { result.append("\\") }
                result.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" {
                result.append("%")
            } else if scalar == "?" {
                result.append("_")
            } else {
                if scalar == "%" || scalar == "_" { result.append("\\") }
                result.append(scalar)
            }
        }
        if escaping { result.append(contentsOf: "\\\\".unicodeScalars) }
        return String(result)
    }
}

extension AttributeValue {
    /// The text of a string or URL (what memory's text tests read); nil for other values.
    var stringLike: String? {
        switch self {
        case .string(let text): text
        case .uri(let url): url.absoluteString
        default: nil
        }
    }
}

import Foundation

/// A condition on an object: the counterpart of Core Data's `NSPredicate`.
///
/// (Foundation on Linux already has `Predicate` and `NSPredicate`, so this type has its own name.)
///
/// A predicate is *data*, not SQL: a format string in Core Data's syntax is parsed into a tree of
/// ``Node``s, and that tree is either evaluated in memory (``evaluate(with:)`` on a managed object, for
/// pending changes, the in-memory store and the fetched-results controller) or compiled to SQL with bound
/// parameters (for the SQLite store). Both give the same answer for every object, including for nil
/// values, case- and diacritic-insensitive comparisons, relationships and aggregates; the package's
/// differential tests check exactly that.
///
/// ```swift
/// let adults = try FetchPredicate(format: "age >= %d AND lastName BEGINSWITH[cd] %@", 18, "zo")
/// let busy = try FetchPredicate(format: "SUBQUERY(projects, $p, $p.deadline < %@).@count > 2", Date())
/// adults.evaluate(with: person)                 // in memory
/// people.filter(busy)                           // [Person] in memory
/// ```
///
/// ## The language
///
/// - Comparisons `==` (`=`), `!=` (`<>`), `<`, `<=` (`=<`), `>`, `>=` (`=>`), `BEGINSWITH`, `ENDSWITH`,
///   `CONTAINS`, `LIKE` (`*` any run, `?` one character, `\` escapes the next), `MATCHES` (an ICU regular
///   expression matching the whole string), `IN` (a `{…}` list, a `%@` collection or a to-many key path;
///   with a single string on the right it tests for a substring), `BETWEEN {low, high}`. Either side may be
///   the key: `3 < age` means `age > 3`.
/// - Modifiers after an operator: `[c]` case-insensitive, `[d]` diacritic-insensitive, `[cd]` both, `[n]`
///   normalized (both sides already folded: compared byte for byte; it supersedes `c` and `d`).
/// - `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`. Keywords are
///   case-insensitive; `#name` uses a reserved word as a key (after a dot no `#` is needed: `item.size`).
/// - Key paths across relationships: `company.name` (to-one chains; nil when a link is missing),
///   `employees.name` (through one to-many relationship: the collection of the elements' values),
///   `company` (an object, compared with `==`, `!=`, `IN`).
/// - `ANY`/`SOME`, `ALL`, `NONE` before a comparison whose left side is a to-many key path or a collection:
///   `ANY tags.name ==[c] "swift"`, `ALL employees.age >= 18`, `NONE {1, 2} == age`. Without a qualifier a
///   to-many key path means `ANY` (as in Core Data's SQLite store), except that `x IN tags.name` and
///   `tags.name CONTAINS x` look for `x` among the values. Two to-many relationships in one key path are
///   refused; use `SUBQUERY`.
/// - Collection operators on to-many key paths: `employees.@count`, `employees.@sum.salary`, `@avg`,
///   `@min`, `@max` (see ``CollectionOperation``), and `SUBQUERY(employees, $e, $e.age > 30).@count`.
/// - `SELF`, the object itself: `SELF IN %@` with managed objects or their IDs, `SELF != %@`.
/// - Values: `nil`/`NULL`, `YES`/`TRUE`, `NO`/`FALSE`, strings in single or double quotes with C escapes
///   (`\n`, `\t`, `\\`, `\'`, `\"`, `\xHH`, `\uHHHH`, octal), integers (also `0x`, `0o`, `0b`), decimals,
///   exponents, negative numbers, and `CAST(value, "NSDate" | "NSUUID" | "NSURL" | "NSData" |
///   "NSManagedObjectID")` for values without a literal form (a date as seconds since 2001, an object by
///   its URI, the others from a string; data as Base64).
/// - Substitution: `%@` a value, an object or a collection (a string is never re-parsed, so quoting is
///   automatic), `%K` a key or key path, `%d %i %ld %lld %u %f %lf %g %x …` numbers; specifiers inside quotes
///   are left alone; `$NAME` variables are bound later with ``withSubstitutionVariables(_:)``.
/// - `tags[SIZE]`, Core Data's spelling of `tags.@count`.
/// - Arithmetic on numbers: `+`, `-`, `*`, `/` and unary minus, `*` and `/` binding tighter, left to right
///   (`age + 1 > 30`, `(score - 1) * 2 <= tags.@count`); see ``Arithmetic`` for the rules (exact division,
///   nil for division by zero and for anything that is not a number).
///
/// Not supported (each is reported as a ``FetchPredicateError/Kind/unsupported`` error at its position):
/// functions (`lowercase(name)`), `**`, indexing (`tags[0]`, `[FIRST]`, `[LAST]`), assignment and other collection operators
/// (`@distinctUnionOfObjects`).
///
/// ## Precedence
///
/// `NOT` binds tighter than `AND`, which binds tighter than `OR`, as in SQL and most languages:
/// `a OR b AND c` means `a OR (b AND c)`. (Apple does not document the relative precedence of `AND` and
/// `OR`; two public reimplementations make `OR` bind tighter. We chose the reading people expect, and
/// ``predicateFormat`` always parenthesises, so printed predicates mean the same under either rule.)
/// Comparisons bind tighter than `NOT`. A chain `a AND b AND c` becomes one ``Node/and(_:)`` with three
/// operands.
///
/// ## Semantics shared by memory and SQL
///
/// - `==`, `!=` and `IN` are two-valued: `name == nil` is true exactly for nil names, `name != "x"` is
///   true for nil names, and two nils are equal. So are `ANY`, `ALL`, `NONE` and a to-many key path's
///   implicit `ANY`: they hold when the comparison is *true* for some, every or no element.
/// - Ordering (`<`, `BETWEEN`, …) and string operators (`BEGINSWITH`, `LIKE`, …) are *unknown* when
///   either side is nil, as in SQL: neither `age > 3` nor `NOT (age > 3)` matches an object whose age is
///   nil. Only a predicate that comes out true matches. (`AND`, `OR` and `NOT` follow SQL's three-valued
///   logic: `false AND unknown` is false, `true OR unknown` is true.)
/// - Values compare within their kind: numbers (integers, doubles, decimals, Booleans as 0/1, dates as
///   seconds since 2001) numerically, integers and doubles exactly; strings and URLs by their UTF-8 bytes
///   (not Swift's canonical equivalence: `"é"` and `"e\u{301}"` differ unless `[d]` is given); data and
///   UUIDs by their bytes. Values of different kinds are never equal, and ordering between them is false.
///   A string operator is false when either side is neither a string nor nil (`name BEGINSWITH 5`).
///   Objects are equal when they are the same object; an object is never equal to a value, and a missing
///   destination (`company == nil`) is nil.
/// - `BEGINSWITH`, `ENDSWITH` and `CONTAINS` compare UTF-8 bytes, so `"Zoe\u{308}" CONTAINS "e"`; an
///   empty string is a prefix, suffix and part of every string. `LIKE`'s `?` is one Unicode scalar.
/// - `[c]` lower-cases both sides and `[cd]` folds case and diacritics (see ``StringFolding``); `[d]`
///   removes diacritics only. `MATCHES[c]` makes the regular expression case-insensitive instead.
/// - In memory, a key path reads related objects as they are in the context, unsaved changes included; a
///   fetch with pending changes re-evaluates only the changed objects of the fetched entity (as Core Data
///   does), so an unsaved change to a *related* object shows after the next save.
public struct FetchPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The predicate's tree.
    public let node: Node

    /// Wraps a tree, simplifying empty and single-operand `AND`/`OR` nodes and normalising decimal
    /// constants to doubles (the SQLite store keeps decimals as REAL), so that ``predicateFormat``
    /// always parses back to an equal predicate.
    public init(_ node: Node) {
        self.node = node.normalized()
    }

    /// Parses a predicate from a Core Data format string, substituting `%@`, `%K`, `%d`… from `arguments`.
    ///
    /// ```swift
    /// try FetchPredicate(format: "%K BEGINSWITH[cd] %@", "lastName", "zo")
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` naming the offending position when the string is malformed, uses
    ///   something not supported, or does not match the arguments (too few, too many, wrong kind).
    public init(format: String, _ arguments: any PredicateArgument...) throws(FetchPredicateError) {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate from a Core Data format string, substituting `%@`, `%K`, `%d`… from an array.
    ///
    /// This is the form to use when the arguments are assembled at run time.
    ///
    /// - Throws: ``FetchPredicateError`` as ``init(format:_:)`` does.
    public init(format: String, argumentArray: [any PredicateArgument]) throws(FetchPredicateError) {
        let tokens = try Tokenizer.tokenize(format, arguments: argumentArray)
        var parser = Parser(tokens: tokens, format: format)
        self.init(try parser.parsePredicate())
        if Printer.nesting(node) > Parser.maximumNesting {
            // Printing adds levels (`NOT (…)`, parentheses around `b AND c` in `a OR b AND c`, `CAST(…)` for
            // substituted dates); a predicate is only accepted when its printed form parses back too.
            throw FetchPredicateError(
                kind: .syntax, message: "Nested too deeply", offset: 0, format: format,
                reason: "written out in full (with every NOT and compound in parentheses) it would nest more "
                    + "than \(Parser.maximumNesting) levels")
        }
    }

    /// The predicate that every object satisfies (`TRUEPREDICATE`).
    public static let truePredicate = FetchPredicate(.truePredicate)
    /// The predicate that no object satisfies (`FALSEPREDICATE`).
    public static let falsePredicate = FetchPredicate(.falsePredicate)

    /// All of `predicates` must hold; an empty list is ``truePredicate``.
    public static func and(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(.and(predicates.map(\.node)))
    }

    /// At least one of `predicates` must hold; an empty list is ``falsePredicate``.
    public static func or(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(.or(predicates.map(\.node)))
    }

    /// `predicate` must not hold. (A predicate that is unknown for an object, such as `age > 3` for a nil
    /// age, stays unknown when negated, so neither matches.)
    public static func not(_ predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(.not(predicate.node))
    }

    /// A comparison of two expressions, for building predicates in code without a format string.
    ///
    /// ```swift
    /// .comparison(.key("age"), .greaterThan, .value(30))
    /// .comparison(.key("tags.name"), .equalTo, .value("swift"), options: .caseInsensitive, modifier: .any)
    /// .comparison(.collectionOperation(.init(.count, of: .keyPath("employees"))), .greaterThan, .value(10))
    /// ```
    public static func comparison(
        _ left: Operand, _ operation: Operator, _ right: Operand, options: ComparisonOptions = [],
        modifier: Modifier = .direct
    ) -> FetchPredicate {
        FetchPredicate(.comparison(Comparison(left, operation, right, options: options, modifier: modifier)))
    }

    /// Compares the attribute `key` with a value: `.key("lastName", .beginsWith, "Zo", options: .caseInsensitive)`.
    ///
    /// For `IN` and `BETWEEN` use ``key(_:in:options:)`` and ``key(_:between:and:options:)``, which take
    /// several values.
    public static func key(
        _ key: String, _ operation: Operator, _ value: AttributeValue, options: ComparisonOptions = []
    ) -> FetchPredicate {
        comparison(.key(key), operation, .value(value), options: options)
    }

    /// The attribute `key` equals one of `values` (`key IN {…}`); an empty list matches nothing.
    public static func key(
        _ key: String, in values: [AttributeValue], options: ComparisonOptions = []
    ) -> FetchPredicate {
        comparison(.key(key), .in, .aggregate(values.map(Operand.value)), options: options)
    }

    /// The attribute `key` lies between `lower` and `upper`, both included (`key BETWEEN {lower, upper}`).
    public static func key(
        _ key: String, between lower: AttributeValue, and upper: AttributeValue, options: ComparisonOptions = []
    ) -> FetchPredicate {
        comparison(.key(key), .between, .aggregate([.value(lower), .value(upper)]), options: options)
    }

    /// The key paths the predicate reads from the object, as written (`company.name`; for a collection
    /// operator or a subquery, its to-many key path). A fetched-results controller uses this to skip
    /// re-evaluating objects whose changes cannot affect the result.
    public var referencedKeys: Set<String> {
        var keys = Set<String>()
        node.visitOperands(includingSubqueries: false) { expression in
            switch expression {
            case .key(let path, _): keys.insert(path)
            case .collectionOperation(let operation, _): keys.insert(operation.collectionKeyPath)
            case .element(let index, _):
                keys.insert(index.collection)
                if let property = index.property { keys.insert(index.collection + "." + property) }
            default: break
            }
        }
        return keys
    }

    /// The names of the `$VARIABLES` still waiting for a value.
    public var variableNames: Set<String> {
        var names = Set<String>()
        node.visitOperands { expression in
            if case .variable(let name, _) = expression { names.insert(name) }
        }
        return names
    }

    /// A copy with each `$NAME` in `variables` replaced by its value (`name == $NAME` becomes
    /// `name == "Zoë"`). Variables not in the dictionary stay, so a predicate can be filled in steps.
    ///
    /// This is how fetch-request templates from a model are used.
    ///
    /// - Throws: ``FetchPredicateError`` when a value does not fit where its variable stands: a NaN, a
    ///   single value after `BETWEEN`, or a string that is not a valid regular expression after `MATCHES`.
    public func withSubstitutionVariables(
        _ variables: [String: AttributeValue]
    ) throws(FetchPredicateError) -> FetchPredicate {
        try withSubstitutionVariables(arguments: variables.mapValues { $0 as any PredicateArgument })
    }

    /// A copy with each `$NAME` in `arguments` replaced: like ``withSubstitutionVariables(_:)``, but the values
    /// may also be objects (`company == $COMPANY`) and collections (`city IN $CITIES`).
    ///
    /// - Throws: ``FetchPredicateError`` as ``withSubstitutionVariables(_:)`` does.
    public func withSubstitutionVariables(
        arguments: [String: any PredicateArgument]
    ) throws(FetchPredicateError) -> FetchPredicate {
        let substituted = try node.substituting(arguments.mapValues(\.predicateArgumentValue))
        return FetchPredicate(substituted)
    }

    /// Checks that no `$VARIABLE` is left unsubstituted.
    ///
    /// ``evaluate(_:)`` cannot throw, and treats a comparison with an unsubstituted variable as unknown
    /// (it matches nothing); call this first when that would hide a mistake.
    ///
    /// - Throws: ``FetchPredicateError/Kind/unsubstitutedVariable`` naming the first variable and its position.
    public func checkAllVariablesSubstituted() throws(FetchPredicateError) {
        var first: FetchPredicateError?
        node.visitOperands { expression in
            if first == nil, case .variable(let name, let location) = expression {
                first = FetchPredicateError.unsubstitutedVariable(name, at: location)
            }
        }
        if let first { throw first }
    }

    /// The predicate in Core Data's format syntax, with every nested `AND`/`OR` and every `NOT` operand in
    /// parentheses; it parses back to an equal predicate.
    ///
    /// (A key built in code that is not an identifier, such as `"first name"`, has no spelling in the
    /// syntax and is printed as it is; such a predicate does not parse back. Nor does an object that has not
    /// been saved: it is printed with its temporary URI.)
    public var predicateFormat: String {
        Printer.format(node)
    }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
}

extension FetchPredicateError {
    static func unsubstitutedVariable(_ name: String, at location: FetchPredicate.SourceLocation?) -> Self {
        FetchPredicateError(
            kind: .unsubstitutedVariable, message: "Variable '$\(name)' has no value", offset: location?.offset,
            format: location?.format, reason: "substitute it with withSubstitutionVariables(_:) first")
    }
}

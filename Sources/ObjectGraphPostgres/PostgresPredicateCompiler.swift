import Foundation
import ObjectGraph

/// Compiles a predicate for the rows of one entity's table to a PostgreSQL condition that gives, row for row, the
/// answer in-memory evaluation gives (``FetchPredicate/evaluate(_:)``), or to nothing at all.
///
/// Exact or nothing: the store sends a fetch to the server only when every part of its predicate compiles here, and
/// otherwise answers it from its copy of the rows, so a fetch's answer never depends on which of the two answered.
/// What compiles:
///
/// - comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN` a list) of an attribute of the row with
///   constants: numbers, dates and Booleans (integers and reals compared exactly, as in memory, `NaN` included),
///   strings and URLs byte for byte (the columns are `COLLATE "C"`), UUIDs and data for equality;
/// - `BEGINSWITH`, `CONTAINS`, `ENDSWITH`, `LIKE` and `IN` a string, byte for byte on UTF-8 (`starts_with`,
///   `strpos`, `right`, and `LIKE` with `*` and `?` translated, which matches per code point as memory does);
/// - all of the above with `[cd]`, on the folded-text column (``PostgresSchema/foldedColumn(_:)``) against the
///   constant folded by the same Swift function memory uses — so folded affixes are the same byte tests;
/// - to-one relationships compared with an object or nil, `SELF` with objects, `NOT`, `AND`, `OR`, `TRUEPREDICATE` and `FALSEPREDICATE`;
/// - one attribute of a to-many relationship's members compared with a constant under `ANY`, `ALL`, `NONE` or no
///   qualifier (`ANY tags.name ==[cd] "swift"`, as `EXISTS`), and `@count` of a to-many relationship.
///
/// Keys may lead through to-one relationships (`company.name`). Not compiled (the copy answers): `MATCHES` (ICU and
/// PostgreSQL regular expressions differ), `[c]` or `[d]` alone, decimals, longer to-many key paths, `IN`/`CONTAINS`
/// on to-many key paths, subqueries, functions, arithmetic, collection
/// operators, variables, and comparisons of two columns or of values of different kinds.
///
/// Truth values follow memory's: equality is two-valued (`nil == nil` holds), orderings with nil are unknown (SQL's
/// NULL), and `NOT`/`AND`/`OR` are Kleene's in both.
struct PostgresPredicateCompiler {
    /// The model whose entities the tables hold.
    let model: ManagedObjectModel
    /// The store whose object IDs constants must carry to equal a row.
    let storeIdentifier: String
    /// Whether the tables have folded-text columns (see ``PostgresSchema/foldedColumn(_:)``).
    let hasFoldedColumns: Bool
    /// The values bound to `$1`, `$2`, … so far, as text (nil for NULL).
    private(set) var parameters: [String?] = []
    /// The concrete entity whose table is being compiled for (set by ``condition(_:forTableOf:)``).
    private(set) var entityName = ""

    init(model: ManagedObjectModel, storeIdentifier: String, hasFoldedColumns: Bool) {
        self.model = model
        self.storeIdentifier = storeIdentifier
        self.hasFoldedColumns = hasFoldedColumns
    }

    /// A placeholder for `text`, cast to `type`.
    mutating func bind(_ text: String?, as type: String) -> String {
        parameters.append(text)
        return "$\(parameters.count)::\(type)"
    }

    /// The condition `predicate` sets on the rows of the concrete `entity`'s table; nil when some part has no exact
    /// translation. A nil predicate is `TRUE`.
    mutating func condition(_ predicate: FetchPredicate?, forTableOf entity: EntityDescription) -> String? {
        guard let predicate else { return "TRUE" }
        entityName = entity.name
        return condition(predicate.node, for: entity)
    }

    /// The condition for rows of `entity`; nil when some part has no exact translation.
    private mutating func condition(_ node: FetchPredicate.Node, for entity: EntityDescription) -> String? {
        switch node {
        case .truePredicate: return "TRUE"
        case .falsePredicate: return "FALSE"
        case .not(let inner): return condition(inner, for: entity).map { "(NOT \($0))" }
        case .and(let nodes): return combine(nodes, "AND", empty: "TRUE", for: entity)
        case .or(let nodes): return combine(nodes, "OR", empty: "FALSE", for: entity)
        case .comparison(let comparison): return self.comparison(comparison, for: entity)
        }
    }

    private mutating func combine(_ nodes: [FetchPredicate.Node], _ word: String, empty: String,
        for entity: EntityDescription) -> String?
    {
        guard !nodes.isEmpty else { return empty }
        var parts: [String] = []
        for node in nodes {
            guard let part = condition(node, for: entity) else { return nil }
            parts.append(part)
        }
        return "(" + parts.joined(separator: " \(word) ") + ")"
    }

    /// The options that take effect: none with `[n]`, which supersedes `[c]` and `[d]`, as in memory.
    static func effective(_ options: FetchPredicate.ComparisonOptions) -> FetchPredicate.ComparisonOptions {
        options.contains(.normalized) ? [] : options
    }

    /// One side of a comparison, once resolved against the row's table.
    enum Side {
        /// An attribute's column.
        case column(Column)
        /// A to-one relationship's column (`Entity/pk` text).
        case toOne(sql: String)
        /// The row itself (`SELF`).
        case row
        case constant(AttributeValue)
        case object(ManagedObjectID)
        /// A `{…}` list of constants (values or objects).
        case list([Side])
    }

    /// An attribute's column: its SQL, its folded-text twin and its type.
    struct Column {
        var sql: String
        var folded: String?
        var type: AttributeType

        /// Whether memory compares the column's values as integers (Booleans as 0 or 1).
        var isInteger: Bool { [.integer16, .integer32, .integer64, .boolean].contains(type) }
        /// Whether memory compares the column's values as reals (dates as seconds since 2001), NaN among them.
        var isReal: Bool { [.double, .float, .date].contains(type) }
        /// The column as an integer (`boolean` cast to `int4`).
        var integerSQL: String { type == .boolean ? "(\(sql))::int4" : sql }
    }

    func side(_ operand: FetchPredicate.Operand, of entity: EntityDescription) -> Side? {
        switch operand {
        case .key(let path, _):
            return Self.side(forKeyPath: path, of: entity, model: model, hasFoldedColumns: hasFoldedColumns)
        case .value(let value):
            // (No stored text holds U+0000, and libpq would cut a parameter short at it: memory answers.)
            if case .string(let text) = value, text.utf8.contains(0) { return nil }
            return .constant(value)
        case .object(let id): return .object(id)
        case .evaluatedObject: return .row
        case .aggregate(let operands):
            var elements: [Side] = []
            for operand in operands {
                switch side(operand, of: entity) {
                case .constant(let value)?: elements.append(.constant(value))
                case .object(let id)?: elements.append(.object(id))
                default: return nil
                }
            }
            return .list(elements)
        case .collectionOperation(let operation, _): return memberCount(operation, of: entity)
        case .variable, .arithmetic, .function, .element: return nil
        }
    }

    mutating func comparison(_ comparison: FetchPredicate.Comparison, for entity: EntityDescription) -> String? {
        if toManyPath(comparison.left, of: entity) != nil { return toManyComparison(comparison, for: entity) }
        guard let left = side(comparison.left, of: entity), let right = side(comparison.right, of: entity) else {
            return nil
        }
        // (`ANY`, `ALL` and `NONE` qualify to-many key paths, which are left to memory.)
        guard comparison.modifier == .direct else { return nil }
        return direct(comparison.operation, left, right, options: Self.effective(comparison.options))
    }

    /// A comparison without qualifier (memory's `compare`).
    private mutating func direct(_ operation: FetchPredicate.Operator, _ left: Side, _ right: Side,
        options: FetchPredicate.ComparisonOptions) -> String?
    {
        switch (operation, left, right) {
        case (.in, _, .list(let elements)):
            return membership(left, in: elements, options: options)
        case (.contains, .list(let elements), _):
            return membership(right, in: elements, options: options)
        case (.between, _, .list(let bounds)):
            guard bounds.count == 2, let lower = scalar(.greaterThanOrEqualTo, left, bounds[0], options: options),
                let upper = scalar(.lessThanOrEqualTo, left, bounds[1], options: options)
            else { return nil }
            return "(\(lower) AND \(upper))"
        case (.between, _, _), (_, .list, _), (_, _, .list):
            return nil
        case (.in, _, _):
            // `needle IN haystack` with one haystack string: a substring test.
            return scalar(.contains, right, left, options: options)
        default:
            return scalar(operation, left, right, options: options)
        }
    }

    /// Whether `member` equals one of `elements` (two-valued, as each equality is).
    private mutating func membership(_ member: Side, in elements: [Side], options: FetchPredicate.ComparisonOptions)
        -> String?
    {
        if case .row = member {
            // `SELF IN %@` with thousands of objects: one array of this table's keys, not a comparison each.
            var keys: [Int64] = []
            for element in elements {
                switch element {
                case .object(let id):
                    if id.storeIdentifier == storeIdentifier, !id.isTemporaryID, id.entityName == entityName,
                        let key = id.primaryKey
                    {
                        keys.append(key)
                    }
                case .constant: continue  // (an object never equals a value)
                default: return nil
                }
            }
            guard !keys.isEmpty else { return "FALSE" }
            return "(\(Self.rowAlias).\"Z_PK\" = ANY(\(bind(PostgresSQL.integerArray(keys), as: "bigint[]"))))"
        }
        var parts: [String] = []
        for element in elements {
            guard let part = scalar(.equalTo, member, element, options: options) else { return nil }
            if part != "FALSE" { parts.append(part) }
        }
        return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
    }
}

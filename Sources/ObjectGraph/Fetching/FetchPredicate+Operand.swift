import Foundation

extension FetchPredicate {
    /// Where in a format string a key or a variable was written, so that errors found later (an unknown key
    /// when compiling to SQL, say) can point at it.
    ///
    /// Locations never take part in equality: a predicate parsed from its own ``FetchPredicate/predicateFormat``
    /// equals the original.
    public struct SourceLocation: Sendable, Hashable {
        /// The 0-based character position in ``format``.
        public var offset: Int
        /// The format string.
        public var format: String

        /// Creates a location.
        public init(offset: Int, format: String) {
            self.offset = offset
            self.format = format
        }
    }

    /// One side of a comparison: a key path, a constant, `SELF`, an object, a `$VARIABLE`, a `{…}` collection
    /// or a collection operator (`employees.@count`, `SUBQUERY(…).@count`).
    public indirect enum Operand: Sendable, Hashable {
        /// A key path read from the object being tested: an attribute (`age`), a to-one chain ending in an
        /// attribute or a relationship (`company.name`, `company`), or a path through one to-many relationship
        /// (`employees.name`), whose value is the collection of the elements' values. Components are separated
        /// by dots. The location, if any, says where it was written.
        case key(String, SourceLocation? = nil)
        /// A constant.
        case value(AttributeValue)
        /// A placeholder filled in by ``FetchPredicate/withSubstitutionVariables(_:)``.
        case variable(String, SourceLocation? = nil)
        /// A collection of expressions, for `IN`, `BETWEEN`, the left of `CONTAINS` and `ANY`/`ALL`/`NONE`.
        case aggregate([Operand])
        /// The object being tested itself (`SELF`); inside a `SUBQUERY`, the element (`$x`).
        case evaluatedObject
        /// A managed object, by its ID (what `%@` becomes for a ``ManagedObject`` or a ``ManagedObjectID``).
        case object(ManagedObjectID)
        /// A value computed from a collection: `employees.@count`, `employees.@sum.salary`,
        /// `SUBQUERY(employees, $e, $e.age > 30).@count`.
        case collectionOperation(CollectionOperation, SourceLocation? = nil)
        /// Arithmetic on numbers: `age + 1`, `score * 2`, `-age` (written `0 - age`). See ``Arithmetic``.
        case arithmetic(Arithmetic)
        /// A built-in function of Core Data's predicate language: `FUNCTION(name, 'lowercase:')`,
        /// `abs(score)`, `now()`. See ``FunctionCall``.
        case function(FunctionCall)
        /// One element of a to-many relationship, or a key path read from it: `tags[FIRST]`, `tags[LAST].name`,
        /// `tags[2].weight`. See ``ElementIndex``.
        case element(ElementIndex, SourceLocation? = nil)

        /// Equality ignores source locations.
        public static func == (lhs: Operand, rhs: Operand) -> Bool {
            switch (lhs, rhs) {
            case let (.key(a, _), .key(b, _)): a == b
            case let (.value(a), .value(b)): a == b
            case let (.variable(a, _), .variable(b, _)): a == b
            case let (.aggregate(a), .aggregate(b)): a == b
            case (.evaluatedObject, .evaluatedObject): true
            case let (.object(a), .object(b)): a == b
            case let (.collectionOperation(a, _), .collectionOperation(b, _)): a == b
            case let (.arithmetic(a), .arithmetic(b)): a == b
            case let (.function(a), .function(b)): a == b
            case let (.element(a, _), .element(b, _)): a == b
            default: false
            }
        }

        /// Hashing ignores source locations.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .key(let name, _):
                hasher.combine(0)
                hasher.combine(name)
            case .value(let value):
                hasher.combine(1)
                hasher.combine(value)
            case .variable(let name, _):
                hasher.combine(2)
                hasher.combine(name)
            case .aggregate(let elements):
                hasher.combine(3)
                hasher.combine(elements)
            case .evaluatedObject:
                hasher.combine(4)
            case .object(let id):
                hasher.combine(5)
                hasher.combine(id)
            case .collectionOperation(let operation, _):
                hasher.combine(6)
                hasher.combine(operation)
            case .arithmetic(let arithmetic):
                hasher.combine(7)
                hasher.combine(arithmetic)
            case .function(let call):
                hasher.combine(8)
                hasher.combine(call)
            case .element(let index, _):
                hasher.combine(9)
                hasher.combine(index)
            }
        }
    }

    /// A collection operator applied to a to-many key path or a subquery: `@count`, `@sum`, `@avg`, `@min`,
    /// `@max`.
    ///
    /// - `@count` is the number of elements (0 for an empty collection).
    /// - `@sum` adds the non-nil values of ``property`` as doubles, in primary-key order (so that rounding is
    ///   the same in memory and in SQLite's `total()`); an empty collection sums to 0.
    /// - `@avg` is that sum divided by the number of non-nil values; nil when there are none.
    /// - `@min` and `@max` are the smallest and largest non-nil values in the store's order; nil when there
    ///   are none.
    public struct CollectionOperation: Sendable, Hashable {
        /// The function applied.
        public enum Function: String, Sendable, Hashable, CaseIterable {
            /// `@count`: the number of elements.
            case count = "@count"
            /// `@sum`: the sum of the property's values.
            case sum = "@sum"
            /// `@avg`: the average of the property's values.
            case average = "@avg"
            /// `@min`: the smallest of the property's values.
            case minimum = "@min"
            /// `@max`: the largest of the property's values.
            case maximum = "@max"
        }

        /// What the function runs over.
        public enum Source: Sendable, Hashable {
            /// The elements of a to-many key path (`employees`, `company.employees`).
            case keyPath(String)
            /// The elements of a to-many key path that satisfy a predicate.
            case subquery(Subquery)
        }

        /// The function.
        public var function: Function
        /// The collection.
        public var source: Source
        /// The key path read from each element (through to-one relationships to an attribute); nil for `@count`.
        public var property: String?

        /// Creates a collection operation: `.init(.sum, of: .keyPath("employees"), property: "salary")`.
        public init(_ function: Function, of source: Source, property: String? = nil) {
            self.function = function
            self.source = source
            self.property = property
        }
    }

    /// `SUBQUERY(collection, $variable, predicate)`: the elements of a to-many key path for which a predicate
    /// holds. Inside the predicate, key paths (with or without `$variable.` in front) are read from the
    /// element, and `$variable` alone is the element itself.
    public struct Subquery: Sendable, Hashable {
        /// The to-many key path whose elements are tested.
        public var collection: String
        /// The variable's name, without `$`.
        public var variable: String
        /// The condition on each element.
        public var predicate: Node

        /// Creates a subquery.
        public init(collection: String, variable: String, predicate: Node) {
            self.collection = collection
            self.variable = variable
            self.predicate = predicate
        }
    }
}

extension FetchPredicate.CollectionOperation {
    /// The to-many key path the operation runs over.
    var collectionKeyPath: String {
        switch source {
        case .keyPath(let path): path
        case .subquery(let subquery): subquery.collection
        }
    }
}

import Foundation

/// One value of a dictionary result: what a fetch reads (a key path, the object's ID, or an aggregate) and
/// the key it is returned under.
///
/// The counterpart of the entries of Core Data's `propertiesToFetch`: an attribute name, a key path, or an
/// `NSExpressionDescription` with a name and an expression such as `sum:(salary)`. A string literal is a
/// key path returned under its own name:
///
/// ```swift
/// request.propertiesToFetch = ["city", "company.name", .count(as: "people"), .average("age", as: "meanAge")]
/// ```
public struct FetchedProperty: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The aggregate functions a dictionary fetch computes over each group (in SQL on the SQLite store).
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// The number of rows (no key path) or of rows whose key path is not nil.
        case count
        /// The sum of the non-nil values: an integer for integer and Boolean attributes, a double otherwise;
        /// 0 when there are none.
        case sum
        /// The mean of the non-nil values, a double; nil when there are none.
        case average = "avg"
        /// The smallest non-nil value, in store order; nil when there are none.
        case minimum = "min"
        /// The largest non-nil value, in store order; nil when there are none.
        case maximum = "max"
    }

    /// What a property reads.
    public enum Expression: Sendable, Hashable {
        /// An attribute (`age`), an attribute through to-one relationships (`company.name`), or a to-one
        /// relationship (`company`), whose value is the destination's object ID as a URI (``AttributeValue/uri(_:)``).
        case keyPath(String)
        /// The fetched object's own ID, as a URI.
        case objectID
        /// An aggregate over each group's rows (over all matching rows without grouping); `keyPath` nil
        /// counts rows.
        case aggregate(Function, keyPath: String?)
    }

    /// The key the value is returned under.
    public var name: String
    /// What is read.
    public var expression: Expression

    /// A property named `name` that reads `expression`.
    public init(name: String, expression: Expression) {
        self.name = name
        self.expression = expression
    }

    /// The key path `value`, under its own name.
    public init(stringLiteral value: String) {
        self.init(name: value, expression: .keyPath(value))
    }

    /// A key path (attribute, to-one key path or to-one relationship), under `name` or its own name.
    public static func keyPath(_ path: String, as name: String? = nil) -> FetchedProperty {
        FetchedProperty(name: name ?? path, expression: .keyPath(path))
    }

    /// The fetched object's ID (a URI), under `name`.
    public static func objectID(as name: String = "objectID") -> FetchedProperty {
        FetchedProperty(name: name, expression: .objectID)
    }

    /// An aggregate of `keyPath` (nil: rows, for `count`), under `name` or ``defaultName(_:_:)``.
    public static func aggregate(_ function: Function, _ keyPath: String?, as name: String? = nil) -> FetchedProperty {
        FetchedProperty(name: name ?? defaultName(function, keyPath), expression: .aggregate(function, keyPath: keyPath))
    }

    /// The number of rows (or of non-nil `keyPath` values) in each group.
    public static func count(_ keyPath: String? = nil, as name: String? = nil) -> FetchedProperty {
        aggregate(.count, keyPath, as: name)
    }

    /// The sum of `keyPath` in each group.
    public static func sum(_ keyPath: String, as name: String? = nil) -> FetchedProperty {
        aggregate(.sum, keyPath, as: name)
    }

    /// The mean of `keyPath` in each group.
    public static func average(_ keyPath: String, as name: String? = nil) -> FetchedProperty {
        aggregate(.average, keyPath, as: name)
    }

    /// The smallest `keyPath` in each group.
    public static func minimum(_ keyPath: String, as name: String? = nil) -> FetchedProperty {
        aggregate(.minimum, keyPath, as: name)
    }

    /// The largest `keyPath` in each group.
    public static func maximum(_ keyPath: String, as name: String? = nil) -> FetchedProperty {
        aggregate(.maximum, keyPath, as: name)
    }

    /// The name an aggregate gets when none is given: `count` for rows, otherwise the function and the key
    /// path joined by underscores (`sum_age`, `max_company_name`), so a having predicate can name it.
    public static func defaultName(_ function: Function, _ keyPath: String?) -> String {
        guard let keyPath else { return function.rawValue }
        return function.rawValue + "_" + keyPath.replacingOccurrences(of: ".", with: "_")
    }

    /// Whether the property is an aggregate.
    public var isAggregate: Bool {
        if case .aggregate = expression { return true }
        return false
    }

    public var description: String {
        switch expression {
        case .keyPath(let path): path == name ? path : "\(name) = \(path)"
        case .objectID: "\(name) = objectID"
        case .aggregate(let function, let keyPath): "\(name) = \(function.rawValue)(\(keyPath ?? "*"))"
        }
    }
}

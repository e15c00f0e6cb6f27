import Foundation

/// A Swift value that can be substituted into a predicate format string for `%@`, `%K`, `%d`, `%f`….
///
/// Core Data takes `CVarArg`s; Swift on Linux has no Objective-C objects to inspect, so arguments say
/// what they are through this protocol. Strings, integers, floating-point numbers, decimals, Booleans,
/// dates, UUIDs, data, URLs and ``AttributeValue``s conform, as do managed objects and their IDs (for
/// `SELF == %@` or `company == %@`), optionals of those (nil substitutes `nil`) and arrays and sets of them
/// (for `IN`). `%K` takes a `String`: the key path to compare.
///
/// ```swift
/// try FetchPredicate(format: "%K IN %@", "city", ["Berlin", "Aarhus"])
/// ```
public protocol PredicateArgument {
    /// The argument as one value or as a collection of values.
    var predicateArgumentValue: FetchPredicate.ArgumentValue { get }
}

extension FetchPredicate {
    /// What a ``PredicateArgument`` contributes to a predicate: one value, or a collection for `IN`.
    public indirect enum ArgumentValue: Sendable, Hashable {
        /// A single value.
        case single(AttributeValue)
        /// Several values, for `IN`, `BETWEEN` and the left side of `CONTAINS`.
        case collection([ArgumentValue])
        /// A managed object, by its ID: for `SELF == %@`, `company == %@`, `SELF IN %@`.
        case object(ManagedObjectID)
    }
}

extension ManagedObjectID: PredicateArgument {
    /// The object with this ID (`SELF == %@`, `company == %@`).
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .object(self) }
}

extension ManagedObject: PredicateArgument {
    /// The object, by its ID (`SELF IN %@`, `company == %@`). An object not saved yet has a temporary ID,
    /// which matches the object in memory but no row in a store.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .object(objectID) }
}

extension AttributeValue: PredicateArgument {
    /// The value itself.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(self) }
}

extension String: PredicateArgument {
    /// A string value (never parsed: `"x' OR 1=1"` is just a string).
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.string(self)) }
}

extension Substring: PredicateArgument {
    /// A string value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.string(String(self))) }
}

extension Int: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension Int8: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension Int16: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension Int32: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension Int64: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(self)) }
}

extension UInt8: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension UInt16: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension UInt32: PredicateArgument {
    /// An integer value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.integer(Int64(self))) }
}

extension UInt: PredicateArgument {
    /// An integer value; above `Int64.max` it becomes the nearest double, as SQLite would store it.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue {
        .single(Int64(exactly: self).map(AttributeValue.integer) ?? .double(Double(self)))
    }
}

extension UInt64: PredicateArgument {
    /// An integer value; above `Int64.max` it becomes the nearest double, as SQLite would store it.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue {
        .single(Int64(exactly: self).map(AttributeValue.integer) ?? .double(Double(self)))
    }
}

extension Double: PredicateArgument {
    /// A floating-point value. (NaN is refused when the predicate is made: it equals nothing.)
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.double(self)) }
}

extension Float: PredicateArgument {
    /// A floating-point value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.double(Double(self))) }
}

extension Decimal: PredicateArgument {
    /// A decimal value; predicates compare it as a double, as the SQLite store keeps it.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.decimal(self)) }
}

extension Bool: PredicateArgument {
    /// A Boolean value (equal to the numbers 1 and 0).
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.boolean(self)) }
}

extension Date: PredicateArgument {
    /// A date value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.date(self)) }
}

extension UUID: PredicateArgument {
    /// A UUID value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.uuid(self)) }
}

extension Data: PredicateArgument {
    /// A binary value.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.binary(self)) }
}

extension URL: PredicateArgument {
    /// A URL value (compared as its absolute string).
    public var predicateArgumentValue: FetchPredicate.ArgumentValue { .single(.uri(self)) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value, or `nil`.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue {
        switch self {
        case .none: .single(.null)
        case .some(let wrapped): wrapped.predicateArgumentValue
        }
    }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    /// A collection of the elements' values, in order.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue {
        .collection(map(\.predicateArgumentValue))
    }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    /// A collection of the elements' values, sorted (in the store's order), so that the same set always
    /// gives the same predicate.
    public var predicateArgumentValue: FetchPredicate.ArgumentValue {
        .collection(map(\.predicateArgumentValue).sorted(by: FetchPredicate.ArgumentValue.sortsBefore))
    }
}

extension FetchPredicate.ArgumentValue {
    /// A total order on argument values, for sets: the store's order, then the printed form for ties.
    static func sortsBefore(_ lhs: Self, _ rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.single(a), .single(b)):
            let order = a.storeOrder(comparedTo: b)
            if order != 0 { return order < 0 }
            return String(describing: a) < String(describing: b)
        case let (.object(a), .object(b)):
            return a.precedes(b)
        case let (.collection(a), .collection(b)):
            return a.count < b.count
        default:
            return lhs.kindRank < rhs.kindRank
        }
    }

    private var kindRank: Int {
        switch self {
        case .single: 0
        case .object: 1
        case .collection: 2
        }
    }
}

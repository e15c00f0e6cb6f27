import Foundation
import Synchronization

/// What in-memory evaluation reads from the object a predicate is tested on: attribute values,
/// relationships and identity. Managed objects, the in-memory store's rows and plain key-value closures
/// provide it, so that one evaluator serves the context, the fetched-results controller and the store.
protocol PredicateSubject {
    /// The value of the attribute (or derived key) `key`; ``AttributeValue/null`` when there is none.
    func predicateValue(forKey key: String) -> AttributeValue
    /// The relationship named `key`, or nil when `key` names no relationship.
    func predicateRelationship(_ key: String) -> PredicateRelationship?
    /// The object's ID, for `SELF` and for comparisons with objects; nil for plain values.
    var predicateObjectID: ManagedObjectID? { get }
    /// The object's entity and model, which tell whether a key path crosses a to-many relationship (so that
    /// a missing link on the way reads as an empty collection, not as nil); nil for plain values.
    var predicateEntity: (EntityDescription, ManagedObjectModel)? { get }
}

/// A relationship's destination(s), as a predicate sees them.
enum PredicateRelationship {
    case toOne((any PredicateSubject)?)
    case toMany([any PredicateSubject])
}

/// Values read through a closure, with no relationships: a key path is passed whole (`"company.name"`).
struct KeyValueSubject: PredicateSubject {
    let read: (String) -> AttributeValue

    func predicateValue(forKey key: String) -> AttributeValue { read(key) }
    func predicateRelationship(_ key: String) -> PredicateRelationship? { nil }
    var predicateObjectID: ManagedObjectID? { nil }
    var predicateEntity: (EntityDescription, ManagedObjectModel)? { nil }
}

extension ManagedObject: PredicateSubject {
    func predicateValue(forKey key: String) -> AttributeValue { value(forKey: key) }

    func predicateRelationship(_ key: String) -> PredicateRelationship? {
        guard let relationship = entity.relationship(named: key) else { return nil }
        return relationship.isToMany ? .toMany(relatedObjects(forKey: key)) : .toOne(relatedObject(forKey: key))
    }

    var predicateObjectID: ManagedObjectID? { objectID }

    var predicateEntity: (EntityDescription, ManagedObjectModel)? {
        managedObjectContext?.persistentStoreCoordinator.map { (entity, $0.managedObjectModel) }
    }
}

/// Follows key paths and applies collection operators on predicate subjects: the in-memory half of what
/// the SQL compiler does with subqueries.
enum KeyPathReader {
    /// The value of `path` on `subject`: a value, an object (a path ending in a to-one relationship), or,
    /// through a to-many relationship, the values reached from every element.
    static func value(of path: String, on subject: any PredicateSubject) -> FetchPredicate.Resolved {
        if !path.utf8.contains(UInt8(ascii: ".")) {
            // One key: an attribute, or a relationship's object(s).
            switch subject.predicateRelationship(path) {
            case .toOne(let destination): return destination.map(identity(of:)) ?? .value(.null)
            case .toMany(let elements): return .many(elements.map(identity(of:)))
            case nil: return .value(subject.predicateValue(forKey: path))
            }
        }
        let value = walk(path.split(separator: ".", omittingEmptySubsequences: false)[...], on: subject)
        guard case .value(.null) = value else { return value }
        // A missing to-one link before the to-many relationship: no elements, as the store's EXISTS sees it.
        if let (entity, model) = subject.predicateEntity, crossesToMany(path, on: entity, in: model) {
            return .many([])
        }
        return value
    }

    /// Whether `path` crosses a to-many relationship of `entity`, remembered per entity and path.
    private static func crossesToMany(_ path: String, on entity: EntityDescription, in model: ManagedObjectModel) -> Bool {
        let key = ToManyKey(entity: ObjectIdentifier(entity), path: path)
        if let known = toManyPaths.withLock({ $0[key] }) { return known }
        let answer = (try? FetchPredicate.ModelChecker(model: model).resolve(path, on: entity, location: nil))?.isToMany == true
        toManyPaths.withLock { cache in
            if cache.count > 4_096 { cache.removeAll() }
            cache[key] = answer
        }
        return answer
    }

    private struct ToManyKey: Hashable {
        let entity: ObjectIdentifier
        let path: String
    }

    private static let toManyPaths = Locked<[ToManyKey: Bool]>([:])

    /// `SELF`: the subject's identity, or its single value for a plain-value subject.
    static func identity(of subject: any PredicateSubject) -> FetchPredicate.Resolved {
        subject.predicateObjectID.map(FetchPredicate.Resolved.object) ?? .value(.null)
    }

    private static func walk(_ keys: ArraySlice<Substring>, on subject: any PredicateSubject) -> FetchPredicate.Resolved {
        guard let first = keys.first else { return identity(of: subject) }
        let rest = keys.dropFirst()
        if let relationship = subject.predicateRelationship(String(first)) {
            switch relationship {
            case .toOne(let destination):
                guard let destination else { return .value(.null) }
                return walk(rest, on: destination)
            case .toMany(let elements):
                guard !rest.isEmpty else { return .many(elements.map(identity(of:))) }
                let remainder = rest.joined(separator: ".")
                var values: [FetchPredicate.Resolved] = []
                for element in elements {
                    // A further to-many hop flattens; a missing to-one link before it reaches no values (as
                    // the nested EXISTS of SQL sees it), while one before an attribute reaches nil.
                    switch value(of: remainder, on: element) {
                    case .many(let inner): values += inner
                    case let single: values.append(single)
                    }
                }
                return .many(values)
            }
        }
        if rest.isEmpty { return .value(subject.predicateValue(forKey: String(first))) }
        // An attribute in the middle of a path: a flat subject reads the whole path as one key.
        return .value(subject.predicateValue(forKey: keys.joined(separator: ".")))
    }

    /// The objects at the end of `path` (through to-one relationships to one to-many relationship).
    static func elements(of path: String, on subject: any PredicateSubject) -> [any PredicateSubject] {
        var current: [any PredicateSubject] = [subject]
        for key in path.split(separator: ".", omittingEmptySubsequences: false) {
            var next: [any PredicateSubject] = []
            for object in current {
                switch object.predicateRelationship(String(key)) {
                case .toOne(let destination?): next.append(destination)
                case .toMany(let elements): next += elements
                case .toOne(nil), nil: break
                }
            }
            current = next
        }
        return current
    }

    /// The value of a collection operator on `subject`.
    static func apply(_ operation: FetchPredicate.CollectionOperation, on subject: any PredicateSubject) -> AttributeValue {
        var elements = elements(of: operation.collectionKeyPath, on: subject)
        if case .subquery(let subquery) = operation.source {
            elements = elements.filter { FetchPredicate.Evaluator(subject: $0).evaluate(subquery.predicate) == .true }
        }
        guard let property = operation.property else { return .integer(Int64(elements.count)) }
        var values: [AttributeValue] = []
        for element in elements {
            if case .value(let value) = Self.value(of: property, on: element), !value.isNull { values.append(value) }
        }
        switch operation.function {
        case .count:
            return .integer(Int64(elements.count))
        case .sum:
            return .double(CollectionArithmetic.sum(values.map(\.numericValue)))
        case .average:
            return CollectionArithmetic.average(values.map(\.numericValue)).map(AttributeValue.double) ?? .null
        case .minimum:
            return values.min { FetchPredicate.ValueComparison.order($0, $1).map { $0 < 0 } ?? false } ?? .null
        case .maximum:
            return values.max { FetchPredicate.ValueComparison.order($0, $1).map { $0 < 0 } ?? false } ?? .null
        }
    }
}

/// `@sum` and `@avg`, defined once for memory and for SQL (where ``PredicateSQLFunctions`` registers them):
/// the values are added as doubles in ascending order, so that the result does not depend on the order in
/// which the store or the context happen to list the elements.
enum CollectionArithmetic {
    /// The sum of `values` added smallest first; 0 for none.
    static func sum(_ values: [Double]) -> Double {
        values.sorted(by: Self.ascending).reduce(0, +)
    }

    /// The sum divided by the count; nil for none.
    static func average(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : sum(values) / Double(values.count)
    }

    /// A total order on doubles (`-0.0` before `0.0`), so that sorting is deterministic.
    private static func ascending(_ lhs: Double, _ rhs: Double) -> Bool {
        lhs.isTotallyOrdered(belowOrEqualTo: rhs) && lhs.bitPattern != rhs.bitPattern
    }

    /// The exact text form of a number that SQL passes to the registered functions (the bits of a double).
    static func encode(_ value: Double) -> String { String(value.bitPattern, radix: 16) }

    /// Reads numbers written by ``encode(_:)``, separated by commas.
    static func decode(_ list: String) -> [Double] {
        list.split(separator: ",").compactMap { UInt64($0, radix: 16).map(Double.init(bitPattern:)) }
    }
}

extension Array where Element: ManagedObject {
    /// The objects that satisfy `predicate`, evaluated in memory (``FetchPredicate/evaluate(with:)``), in
    /// their order.
    public func filter(_ predicate: FetchPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0) }
    }
}

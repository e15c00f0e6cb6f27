import Foundation

extension FetchPredicate {
    /// One element of a to-many relationship picked by position, and optionally a key path read from it:
    /// `tags[FIRST]`, `tags[LAST].name`, `items[0].price`, `company.employees[2].manager`.
    ///
    /// Positions follow the relationship's order. An ordered relationship has its own order (the one
    /// `NSOrderedSet` keeps, stored in `Z_FOK_` columns). An unordered relationship has none in Core Data (an
    /// `NSSet`), so we define one, the same in memory and in SQL: saved objects by primary key (the order
    /// they were first saved), then objects not saved yet, in the order they were inserted. A position past
    /// the end, or an empty relationship, gives nil. (`[SIZE]` is the count: ``CollectionOperation``.)
    public struct ElementIndex: Sendable, Hashable {
        /// Where in the relationship's order the element is.
        public enum Position: Sendable, Hashable {
            /// `[FIRST]`: the first element.
            case first
            /// `[LAST]`: the last element.
            case last
            /// `[n]`: the element at 0-based position `n` (never negative).
            case index(Int)
        }

        /// The to-many key path whose element is picked (`tags`, `company.employees`).
        public var collection: String
        /// The position.
        public var position: Position
        /// The key path read from the element (through to-one relationships to an attribute or a
        /// relationship); nil for the element itself.
        public var property: String?

        /// Creates an index: `.init("tags", .first, property: "name")` is `tags[FIRST].name`.
        public init(_ collection: String, _ position: Position, property: String? = nil) {
            self.collection = collection
            self.position = position
            self.property = property
        }
    }
}

extension FetchPredicate.ElementIndex.Position {
    /// The position as the format syntax writes it, inside the brackets.
    var formatText: String {
        switch self {
        case .first: "FIRST"
        case .last: "LAST"
        case .index(let index): String(index)
        }
    }
}

extension KeyPathReader {
    /// The elements of a to-many key path of `subject` in the relationship's order: as listed for an ordered
    /// relationship; for an unordered one, saved objects by primary key, then unsaved ones by insertion.
    static func orderedElements(
        of path: String, on subject: any PredicateSubject
    ) -> [any PredicateSubject] {
        let elements = elements(of: path, on: subject)
        if isOrdered(path, on: subject) { return elements }
        return elements.sorted { lhs, rhs in
            guard let a = lhs.predicateObjectID, let b = rhs.predicateObjectID else { return false }
            if a.isTemporaryID != b.isTemporaryID { return !a.isTemporaryID }
            return a.key < b.key
        }
    }

    /// Whether the last relationship of `path` is an ordered to-many relationship.
    private static func isOrdered(_ path: String, on subject: any PredicateSubject) -> Bool {
        guard let (entity, model) = subject.predicateEntity,
            let resolved = try? FetchPredicate.ModelChecker(model: model).resolve(path, on: entity, location: nil),
            let last = resolved.hops.last
        else { return false }
        return last.relationship.isToMany && last.relationship.isOrdered
    }

    /// The value of `tags[FIRST].name` and the like on `subject`: nil when there is no such element.
    static func value(of index: FetchPredicate.ElementIndex, on subject: any PredicateSubject) -> FetchPredicate.Resolved {
        let elements = orderedElements(of: index.collection, on: subject)
        let element: (any PredicateSubject)?
        switch index.position {
        case .first: element = elements.first
        case .last: element = elements.last
        case .index(let position): element = position >= 0 && position < elements.count ? elements[position] : nil
        }
        guard let element else { return .value(.null) }
        guard let property = index.property else { return identity(of: element) }
        return value(of: property, on: element)
    }
}

import Foundation

extension FetchPredicate {
    /// Checks the predicate against the entity it will be evaluated on: every key path must name stored
    /// attributes and relationships of `entity` (and of the entities its relationships lead to), cross
    /// several to-many relationships only where elements are compared one by one (`ANY`, `ALL`, `NONE`, an
    /// implicit `ANY`, `IN`, `CONTAINS`), and be used where it fits (a relationship is compared for identity, a
    /// collection operator runs over a to-many relationship, `@sum` and `@avg` add numbers, …).
    ///
    /// Stores call this before fetching, so a mistake is an error whichever store answers, instead of a
    /// silent nil. (``evaluate(with:)`` does not check: an unknown key reads as nil there.)
    ///
    /// - Throws: ``FetchPredicateError`` with kind ``FetchPredicateError/Kind/unknownKey`` naming the key
    ///   and the entity, ``FetchPredicateError/Kind/unsupported`` for a collection operator,
    ///   subquery or index over a path through two to-many relationships, ``FetchPredicateError/Kind/invalidValue`` for a key path used where it cannot be
    ///   (`ANY` on a to-one path, `@sum` of strings, a relationship compared with `<`), and
    ///   ``FetchPredicateError/Kind/unsubstitutedVariable`` for a `$VARIABLE` still waiting for its value.
    public func validate(for entity: EntityDescription, in model: ManagedObjectModel) throws(FetchPredicateError) {
        try checkAllVariablesSubstituted()
        try ModelChecker(model: model).check(node, on: entity)
    }

    /// A key path resolved against the model: the relationships it crosses and where it ends.
    struct ResolvedKeyPath {
        /// One relationship crossed.
        struct Hop {
            let relationship: RelationshipDescription
            let source: EntityDescription
            let destination: EntityDescription
        }

        var hops: [Hop] = []
        /// The attribute the path ends in; nil when it ends in a relationship (its value is an object).
        var attribute: AttributeDescription?
        /// The entity whose attribute is read, or the destination of the last relationship.
        var owner: EntityDescription
        /// The positions in ``hops`` of the to-many relationships the path crosses, in order.
        var toManyIndexes: [Int] = []
        /// The position in ``hops`` of the first to-many relationship, if the path crosses one.
        var toManyIndex: Int? { toManyIndexes.first }

        var isToMany: Bool { !toManyIndexes.isEmpty }
        var endsInObject: Bool { attribute == nil }
        /// Whether the path is a to-many relationship itself, crossing no other (`employees`,
        /// `company.employees`), as a collection operator, a subquery or an index needs.
        var isCollection: Bool { attribute == nil && toManyIndexes == [hops.count - 1] }
    }

    /// Resolves key paths and checks comparisons against a model.
    struct ModelChecker {
        let model: ManagedObjectModel

        func resolve(
            _ path: String, on entity: EntityDescription, location: SourceLocation?
        ) throws(FetchPredicateError) -> ResolvedKeyPath {
            var result = ResolvedKeyPath(owner: entity)
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (position, key) in keys.enumerated() {
                let current = result.owner
                if result.attribute != nil {
                    throw FetchPredicateError(
                        kind: .unknownKey, message: "Key path '\(path)' continues after an attribute",
                        offset: location?.offset, format: location?.format,
                        reason: "'\(keys[position - 1])' of entity \(result.hops.last?.destination.name ?? entity.name) "
                            + "is an attribute, not a relationship")
                }
                if position + 1 < keys.count, current.compositeAttribute(named: key) != nil {
                    // `location.latitude`: a composite's element, an attribute of the entity under its full path.
                    let element = keys[position...].joined(separator: ".")
                    guard let attribute = current.attribute(named: element), !attribute.isTransient else {
                        throw FetchPredicateError.unknownKey(element, entity: current.name, at: location,
                            transient: current.attribute(named: element)?.isTransient == true)
                    }
                    result.attribute = attribute
                    break
                }
                if let relationship = current.relationship(named: key), !relationship.isTransient {
                    guard let destination = model.entity(named: relationship.destinationEntityName) else {
                        throw FetchPredicateError.unknownKey(key, entity: current.name, at: location)
                    }
                    if relationship.isToMany { result.toManyIndexes.append(result.hops.count) }
                    result.hops.append(.init(relationship: relationship, source: current, destination: destination))
                    result.owner = destination
                } else if let attribute = current.attribute(named: key), !attribute.isTransient {
                    result.attribute = attribute
                } else {
                    throw FetchPredicateError.unknownKey(
                        key, entity: current.name, at: location,
                        transient: current.attribute(named: key)?.isTransient == true
                            || current.relationship(named: key)?.isTransient == true)
                }
            }
            return result
        }

        func check(_ node: Node, on entity: EntityDescription) throws(FetchPredicateError) {
            switch node {
            case .truePredicate, .falsePredicate:
                return
            case .comparison(let comparison):
                try check(comparison, on: entity)
            case .not(let operand):
                try check(operand, on: entity)
            case .and(let operands), .or(let operands):
                for operand in operands { try check(operand, on: entity) }
            }
        }

        /// What kind of value an expression has, as far as the checks care.
        enum Shape {
            case scalar, object, collection, toManyValues, toManyObjects
        }

        func shape(of operand: Operand, on entity: EntityDescription) throws(FetchPredicateError) -> Shape {
            switch operand {
            case .key(let path, let location):
                let resolved = try resolve(path, on: entity, location: location)
                switch (resolved.isToMany, resolved.endsInObject) {
                case (false, false): return .scalar
                case (false, true): return .object
                case (true, false): return .toManyValues
                case (true, true): return .toManyObjects
                }
            case .collectionOperation(let operation, let location):
                try check(operation, on: entity, location: location)
                return .scalar
            case .aggregate(let elements):
                for element in elements {
                    let elementShape = try shape(of: element, on: entity)
                    guard elementShape != .scalar, elementShape != .object else { continue }
                    throw FetchPredicateError(
                        kind: .invalidValue, message: "Key path to a collection inside {…}",
                        offset: element.firstLocation?.offset, format: element.firstLocation?.format,
                        reason: "the elements of {…} must be single values")
                }
                return .collection
            case .evaluatedObject, .object:
                return .object
            case .value, .variable:
                return .scalar
            case .function(let call):
                for argument in call.arguments where try shape(of: argument, on: entity) != .scalar {
                    throw FetchPredicateError(
                        kind: .invalidValue,
                        message: "Function '\(call.function.rawValue)' of something that is not a single value",
                        offset: argument.firstLocation?.offset, format: argument.firstLocation?.format,
                        reason: "a function's arguments must be attributes through to-one relationships, constants, "
                            + "or collection operators; use SUBQUERY or ANY for the elements of a to-many relationship")
                }
                return .scalar
            case .element(let index, let location):
                return try check(index, on: entity, location: location)
            case .arithmetic(let arithmetic):
                for side in [arithmetic.left, arithmetic.right] where try shape(of: side, on: entity) != .scalar {
                    throw FetchPredicateError(
                        kind: .invalidValue, message: "Arithmetic on something that is not a single value",
                        offset: side.firstLocation?.offset, format: side.firstLocation?.format,
                        reason: "+, -, * and / need numbers: attributes through to-one relationships, constants, "
                            + "@count, @sum, @avg, @min or @max")
                }
                return .scalar
            }
        }

        func check(_ comparison: Comparison, on entity: EntityDescription) throws(FetchPredicateError) {
            let left = try shape(of: comparison.left, on: entity)
            let right = try shape(of: comparison.right, on: entity)
            let location = comparison.left.firstLocation ?? comparison.right.firstLocation
            func refuse(_ message: String, _ reason: String) -> FetchPredicateError {
                FetchPredicateError(
                    kind: .invalidValue, message: message, offset: location?.offset, format: location?.format,
                    reason: reason)
            }
            let leftIsToMany = left == .toManyValues || left == .toManyObjects
            let rightIsToMany = right == .toManyValues || right == .toManyObjects
            if comparison.modifier != .direct {
                if case .key = comparison.left, !leftIsToMany {
                    throw refuse(
                        "\(comparison.modifier.rawValue) on a key path without a to-many relationship",
                        "\(comparison.modifier.rawValue) needs a collection: a key path through a to-many relationship")
                }
                if rightIsToMany {
                    throw refuse("Collection on both sides", "only the left side of \(comparison.modifier.rawValue) "
                        + "may be a to-many key path")
                }
            } else if leftIsToMany && rightIsToMany {
                throw refuse("Collection on both sides", "a comparison may have a to-many key path on one side only")
            }
            let objects = [left, right].contains { $0 == .object || $0 == .toManyObjects }
            if objects, ![.equalTo, .notEqualTo, .in, .contains].contains(comparison.operation) {
                throw refuse(
                    "Object compared with \(comparison.operation.rawValue)",
                    "objects (relationships, SELF) can only be compared with ==, !=, IN and CONTAINS")
            }
        }

        func check(
            _ operation: CollectionOperation, on entity: EntityDescription, location: SourceLocation?
        ) throws(FetchPredicateError) {
            let path = operation.collectionKeyPath
            let collection = try resolve(path, on: entity, location: location)
            if collection.toManyIndexes.count > 1 { throw FetchPredicateError.severalToMany(path, at: location) }
            guard collection.isCollection, let element = collection.hops.last?.destination else {
                throw FetchPredicateError(
                    kind: .invalidValue, message: "'\(path)' is not a to-many relationship",
                    offset: location?.offset, format: location?.format,
                    reason: "\(operation.function.rawValue) and SUBQUERY need a to-many relationship of \(entity.name)")
            }
            if case .subquery(let subquery) = operation.source {
                try check(subquery.predicate, on: element)
            }
            guard let property = operation.property else { return }
            let resolved = try resolve(property, on: element, location: location)
            guard let attribute = resolved.attribute, !resolved.isToMany else {
                throw FetchPredicateError(
                    kind: .invalidValue, message: "\(operation.function.rawValue) of '\(property)' needs an attribute",
                    offset: location?.offset, format: location?.format,
                    reason: "the key after \(operation.function.rawValue) must lead through to-one relationships "
                        + "to an attribute of \(element.name)")
            }
            if operation.function == .sum || operation.function == .average {
                let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean]
                guard numeric.contains(attribute.attributeType) else {
                    throw FetchPredicateError(
                        kind: .invalidValue, message: "\(operation.function.rawValue) of '\(property)' needs numbers",
                        offset: location?.offset, format: location?.format,
                        reason: "\(attribute.name) is a \(attribute.attributeType) attribute")
                }
            }
        }
    }
}

extension FetchPredicate.ModelChecker {
    /// Checks `tags[FIRST].name` and the like: a to-many relationship crossing no other, and a property
    /// through to-one relationships. The element's value is a single value or an object.
    func check(
        _ index: FetchPredicate.ElementIndex, on entity: EntityDescription, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> Shape {
        let collection = try resolve(index.collection, on: entity, location: location)
        if collection.toManyIndexes.count > 1 {
            throw FetchPredicateError.severalToMany(index.collection, at: location)
        }
        guard collection.isCollection, let element = collection.hops.last?.destination else {
            throw FetchPredicateError(
                kind: .invalidValue, message: "'\(index.collection)' is not a to-many relationship",
                offset: location?.offset, format: location?.format,
                reason: "[\(index.position.formatText)] needs a to-many relationship of \(entity.name)")
        }
        guard let property = index.property else { return .object }
        let resolved = try resolve(property, on: element, location: location)
        guard !resolved.isToMany else {
            throw FetchPredicateError(
                kind: .unsupported,
                message: "Key path '\(property)' after [\(index.position.formatText)] crosses a to-many relationship",
                offset: location?.offset, format: location?.format,
                reason: "after an index, a key path may cross to-one relationships only")
        }
        return resolved.endsInObject ? .object : .scalar
    }
}

extension FetchPredicateError {
    /// A collection operator, subquery or index over a key path that crosses more than one to-many relationship.
    static func severalToMany(_ path: String, at location: FetchPredicate.SourceLocation?) -> Self {
        FetchPredicateError(
            kind: .unsupported, message: "Key path '\(path)' crosses several to-many relationships",
            offset: location?.offset, format: location?.format,
            reason: "collection operators, SUBQUERY and [FIRST]/[LAST]/[n] need one to-many relationship; "
                + "nest a SUBQUERY, or use ANY, ALL or NONE, which accept several")
    }

    static func unknownKey(
        _ key: String, entity: String, at location: FetchPredicate.SourceLocation?, transient: Bool = false
    ) -> Self {
        FetchPredicateError(
            kind: .unknownKey, message: "Unknown key '\(key)'", offset: location?.offset, format: location?.format,
            reason: transient
                ? "'\(key)' of entity \(entity) is transient; predicates read stored properties only"
                : "entity \(entity) has no attribute or relationship named '\(key)'")
    }
}

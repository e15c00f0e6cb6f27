import Foundation

// Walking, normalising, substituting and checking predicate trees.

extension FetchPredicate.Node {
    /// Calls `body` for every expression in the tree, aggregate elements included; with
    /// `includingSubqueries`, also for the expressions of subquery predicates (which are read from the
    /// subquery's elements, not from the object).
    func visitOperands(includingSubqueries: Bool = true, _ body: (FetchPredicate.Operand) -> Void) {
        switch self {
        case .truePredicate, .falsePredicate:
            break
        case .comparison(let comparison):
            comparison.left.visit(includingSubqueries: includingSubqueries, body)
            comparison.right.visit(includingSubqueries: includingSubqueries, body)
        case .not(let operand):
            operand.visitOperands(includingSubqueries: includingSubqueries, body)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.visitOperands(includingSubqueries: includingSubqueries, body) }
        }
    }

    /// Calls `body` for every comparison in the tree, those inside subqueries included.
    func visitComparisons(_ body: (FetchPredicate.Comparison) -> Void) {
        switch self {
        case .truePredicate, .falsePredicate:
            break
        case .comparison(let comparison):
            body(comparison)
            for side in [comparison.left, comparison.right] {
                side.visit { operand in
                    if case .collectionOperation(let operation, _) = operand, case .subquery(let subquery) = operation.source {
                        subquery.predicate.visitComparisons(body)
                    }
                }
            }
        case .not(let operand):
            operand.visitComparisons(body)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.visitComparisons(body) }
        }
    }

    /// The tree with trivial compounds removed and constants in their canonical kinds.
    func normalized() -> FetchPredicate.Node {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .comparison(var comparison):
            comparison.left = comparison.left.normalized()
            comparison.right = comparison.right.normalized()
            return .comparison(comparison)
        case .not(let operand):
            return .not(operand.normalized())
        case .and(let operands):
            if operands.isEmpty { return .truePredicate }
            if operands.count == 1 { return operands[0].normalized() }
            return .and(operands.map { $0.normalized() })
        case .or(let operands):
            if operands.isEmpty { return .falsePredicate }
            if operands.count == 1 { return operands[0].normalized() }
            return .or(operands.map { $0.normalized() })
        }
    }

    /// The tree with variables replaced, each changed comparison re-validated.
    func substituting(
        _ variables: [String: FetchPredicate.ArgumentValue]
    ) throws(FetchPredicateError) -> FetchPredicate.Node {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .comparison(var comparison):
            var changed = false
            var location: FetchPredicate.SourceLocation?
            let left = try comparison.left.substituting(variables, changed: &changed, location: &location)
            let right = try comparison.right.substituting(variables, changed: &changed, location: &location)
            guard changed else { return self }
            comparison.left = left
            comparison.right = right
            if let problem = comparison.validationProblem() {
                throw FetchPredicateError(
                    kind: .invalidValue, message: problem.message, offset: location?.offset,
                    format: location?.format, reason: problem.reason)
            }
            return .comparison(comparison)
        case .not(let operand):
            return .not(try operand.substituting(variables))
        case .and(let operands):
            var result: [FetchPredicate.Node] = []
            for operand in operands { result.append(try operand.substituting(variables)) }
            return .and(result)
        case .or(let operands):
            var result: [FetchPredicate.Node] = []
            for operand in operands { result.append(try operand.substituting(variables)) }
            return .or(result)
        }
    }
}

extension FetchPredicate.Operand {
    /// Calls `body` for this expression and every expression inside it (aggregate elements, and with
    /// `includingSubqueries` the expressions of a subquery's predicate).
    func visit(includingSubqueries: Bool = true, _ body: (FetchPredicate.Operand) -> Void) {
        body(self)
        switch self {
        case .aggregate(let elements):
            for element in elements { element.visit(includingSubqueries: includingSubqueries, body) }
        case .arithmetic(let arithmetic):
            arithmetic.left.visit(includingSubqueries: includingSubqueries, body)
            arithmetic.right.visit(includingSubqueries: includingSubqueries, body)
        case .function(let call):
            for argument in call.arguments { argument.visit(includingSubqueries: includingSubqueries, body) }
        case .collectionOperation(let operation, _):
            if includingSubqueries, case .subquery(let subquery) = operation.source {
                subquery.predicate.visitOperands(includingSubqueries: true, body)
            }
        default:
            break
        }
    }

    func normalized() -> FetchPredicate.Operand {
        switch self {
        case .value(.decimal(let decimal)):
            return .value(.double(NSDecimalNumber(decimal: decimal).doubleValue))
        case .aggregate(let elements):
            return .aggregate(elements.map { $0.normalized() })
        case .arithmetic(var arithmetic):
            arithmetic.left = arithmetic.left.normalized()
            arithmetic.right = arithmetic.right.normalized()
            return .arithmetic(arithmetic)
        case .function(var call):
            call.arguments = call.arguments.map { $0.normalized() }
            return .function(call)
        case .collectionOperation(var operation, let location):
            if case .subquery(var subquery) = operation.source {
                subquery.predicate = subquery.predicate.normalized()
                operation.source = .subquery(subquery)
            }
            return .collectionOperation(operation, location)
        default:
            return self
        }
    }

    /// The expression with known variables replaced. `changed` becomes true when one was, and `location`
    /// receives the first replaced variable's location, for error messages.
    func substituting(
        _ variables: [String: FetchPredicate.ArgumentValue], changed: inout Bool,
        location: inout FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> FetchPredicate.Operand {
        switch self {
        case .variable(let name, let variableLocation):
            guard let value = variables[name] else { return self }
            if !changed { location = variableLocation }
            changed = true
            return try Self.operand(for: value, location: variableLocation).normalized()
        case .aggregate(let elements):
            var result: [FetchPredicate.Operand] = []
            for element in elements {
                result.append(try element.substituting(variables, changed: &changed, location: &location))
            }
            return .aggregate(result)
        case .arithmetic(var arithmetic):
            arithmetic.left = try arithmetic.left.substituting(variables, changed: &changed, location: &location)
            arithmetic.right = try arithmetic.right.substituting(variables, changed: &changed, location: &location)
            return .arithmetic(arithmetic)
        case .function(var call):
            var arguments: [FetchPredicate.Operand] = []
            for argument in call.arguments {
                arguments.append(try argument.substituting(variables, changed: &changed, location: &location))
            }
            call.arguments = arguments
            return .function(call)
        case .collectionOperation(var operation, let operationLocation):
            guard case .subquery(var subquery) = operation.source else { return self }
            let substituted = try subquery.predicate.substituting(variables)
            guard substituted != subquery.predicate else { return self }
            if !changed { location = operationLocation }
            changed = true
            subquery.predicate = substituted
            operation.source = .subquery(subquery)
            return .collectionOperation(operation, operationLocation)
        default:
            return self
        }
    }

    /// The expression an argument value stands for: a constant, an object, or a collection of them.
    static func operand(
        for value: FetchPredicate.ArgumentValue, location: FetchPredicate.SourceLocation?
    ) throws(FetchPredicateError) -> FetchPredicate.Operand {
        switch value {
        case .single(let single):
            return .value(single)
        case .object(let id):
            return .object(id)
        case .collection(let elements):
            var operands: [FetchPredicate.Operand] = []
            for element in elements {
                switch element {
                case .single(let single): operands.append(.value(single))
                case .object(let id): operands.append(.object(id))
                case .collection:
                    throw FetchPredicateError(
                        kind: .argument, message: "Nested collection", offset: location?.offset,
                        format: location?.format, reason: "a collection argument must hold single values")
                }
            }
            return .aggregate(operands)
        }
    }

    /// The source location of the first key or variable in the expression.
    var firstLocation: FetchPredicate.SourceLocation? {
        switch self {
        case .key(_, let location), .variable(_, let location), .collectionOperation(_, let location),
            .element(_, let location):
            return location
        case .value, .evaluatedObject, .object: return nil
        case .aggregate(let elements):
            for element in elements {
                if let location = element.firstLocation { return location }
            }
            return nil
        case .arithmetic(let arithmetic):
            return arithmetic.left.firstLocation ?? arithmetic.right.firstLocation
        case .function(let call):
            for argument in call.arguments {
                if let location = argument.firstLocation { return location }
            }
            return nil
        }
    }

    var isAggregate: Bool {
        if case .aggregate = self { return true }
        return false
    }

    /// Whether the expression is an object reference (`SELF` or an object constant).
    var isObjectReference: Bool {
        switch self {
        case .evaluatedObject, .object: true
        default: false
        }
    }
}

extension FetchPredicate.Comparison {
    /// Why this comparison cannot be evaluated as written (a collection where a single value belongs, a
    /// `BETWEEN` without two bounds, NaN, a malformed constant regular expression, `ANY` without a
    /// collection, objects compared by order), or nil when it can.
    func validationProblem() -> (message: String, reason: String?)? {
        for side in [left, right] {
            if case .aggregate(let elements) = side, elements.contains(where: \.isAggregate) {
                return ("Nested collection", "a collection inside a collection cannot be compared")
            }
            var hasNaN = false
            side.visit(includingSubqueries: false) { expression in
                if case .value(.double(let number)) = expression, number.isNaN { hasNaN = true }
            }
            if hasNaN { return ("NaN value", "NaN is not equal to anything and cannot be stored; use nil") }
        }
        if modifier != .direct {
            switch left {
            case .key, .aggregate, .variable:
                break
            default:
                return (
                    "\(modifier.rawValue) without a collection",
                    "\(modifier.rawValue) needs a to-many key path or a collection on its left")
            }
        }
        if let problem = objectProblem() { return problem }
        // With ANY, ALL or NONE the left side's elements are compared one by one.
        let leftIsCollection = modifier == .direct && left.isAggregate
        switch operation {
        case .in:
            if leftIsCollection {
                return ("Collection before IN", "the left side of IN must be a single value")
            }
        case .contains:
            if right.isAggregate {
                return ("Collection after CONTAINS", "the right side of CONTAINS must be a single value")
            }
        case .between:
            if leftIsCollection {
                return ("Collection before BETWEEN", "the left side of BETWEEN must be a single value")
            }
            switch right {
            case .aggregate(let bounds) where bounds.count != 2:
                return ("BETWEEN with \(bounds.count) bounds", "BETWEEN needs exactly two values, {low, high}")
            case .aggregate, .variable:
                break
            default:
                return ("BETWEEN without bounds", "BETWEEN needs two values, {low, high}")
            }
        default:
            if leftIsCollection || right.isAggregate {
                return (
                    "Collection used with \(operation.rawValue)",
                    "a collection can only be used with IN, BETWEEN, ANY/ALL/NONE, or on the left of CONTAINS"
                )
            }
        }
        if operation == .matches, case .value(let pattern) = right, let text = pattern.predicateText {
            if let problem = FetchPredicate.TextMatching.regularExpressionProblem(pattern: text, options: options) {
                return ("Invalid regular expression", problem)
            }
        }
        return nil
    }

    /// Objects (`SELF`, object arguments) only compare for identity: `==`, `!=`, `IN` and `CONTAINS`.
    private func objectProblem() -> (message: String, reason: String?)? {
        var hasObject = false
        for side in [left, right] {
            side.visit(includingSubqueries: false) { if $0.isObjectReference { hasObject = true } }
        }
        guard hasObject else { return nil }
        switch operation {
        case .equalTo, .notEqualTo, .in, .contains:
            return nil
        default:
            return (
                "Object compared with \(operation.rawValue)",
                "objects can only be compared with ==, !=, IN and CONTAINS")
        }
    }
}

extension AttributeValue {
    /// The text of a textual value (a string or a URL), as SQLite stores it; nil for other kinds.
    var predicateText: String? {
        switch self {
        case .string(let value): value
        case .uri(let value): value.absoluteString
        default: nil
        }
    }
}

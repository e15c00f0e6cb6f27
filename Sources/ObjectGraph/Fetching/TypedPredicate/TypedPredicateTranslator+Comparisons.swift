import Foundation

extension TypedPredicateTranslator {
    /// `lhs op rhs` for values (key paths, constants, objects, alternatives from `??` and `? :`), or `==` and
    /// `!=` between conditions.
    ///
    /// Alternatives are compared pairwise, each pair under both of its conditions: `(a ?? 0) > 3` becomes
    /// `(a != nil AND a > 3) OR (a == nil AND 0 > 3)`, the constant part folded away.
    func compare(
        _ lhs: TypedPredicateTerm, _ operation: FetchPredicate.Operator, _ rhs: TypedPredicateTerm,
        options: FetchPredicate.ComparisonOptions = []
    ) throws(TypedPredicateError) -> FetchPredicate.Node {
        if operation == .equalTo || operation == .notEqualTo, isConditionLike(lhs) || isConditionLike(rhs) {
            let equal = try conditionsEqual(lhs, rhs)
            return operation == .equalTo ? equal : equal.negated
        }
        let left = try alternatives(lhs)
        let right = try alternatives(rhs)
        var result = FetchPredicate.Node.falsePredicate
        for one in left {
            for other in right {
                let comparison = Self.fold(
                    .comparison(.init(one.operand, operation, other.operand, options: options)))
                let guarded = (one.condition ?? .truePredicate).and(other.condition).and(comparison)
                result = result.or(guarded)
            }
        }
        return result
    }

    /// Whether a term is a condition (or an optional one) rather than a value.
    private func isConditionLike(_ term: TypedPredicateTerm) -> Bool {
        if case .condition = term { return true }
        return false
    }

    /// Whether two Boolean terms are equal, Swift's way: two nil optionals are equal, nil differs from
    /// `true` and `false`.
    private func conditionsEqual(
        _ lhs: TypedPredicateTerm, _ rhs: TypedPredicateTerm
    ) throws(TypedPredicateError) -> FetchPredicate.Node {
        let (left, leftDefined) = try optionalCondition(lhs)
        let (right, rightDefined) = try optionalCondition(rhs)
        let bothDefined = (leftDefined ?? .truePredicate).and(rightDefined)
        let same = (left.and(right)).or(left.negated.and(right.negated))
        var result = bothDefined.and(same)
        if let leftDefined, let rightDefined {
            result = result.or(leftDefined.negated.and(rightDefined.negated))
        }
        return result
    }

    /// A Boolean term as a condition and the condition under which it is not nil (nil: never nil). A nil
    /// constant is the condition `FALSEPREDICATE` that is never defined.
    private func optionalCondition(
        _ term: TypedPredicateTerm
    ) throws(TypedPredicateError) -> (FetchPredicate.Node, defined: FetchPredicate.Node?) {
        switch term {
        case .condition(let node, let defined):
            return (node, defined)
        case .constant(let value) where Self.isNil(value):
            return (.falsePredicate, .falsePredicate)
        case .value(let alternatives):
            // An optional Boolean attribute: nil when the stored value is nil.
            let node = try condition(term)
            var defined = FetchPredicate.Node.falsePredicate
            for alternative in alternatives {
                let notNil = Self.fold(.comparison(.init(alternative.operand, .notEqualTo, .value(.null))))
                defined = defined.or((alternative.condition ?? .truePredicate).and(notNil))
            }
            return (node, defined == .truePredicate ? nil : defined)
        default:
            return (try condition(term), nil)
        }
    }

    /// `lhs ?? rhs`: the left side when it is not nil, else the right side.
    func coalesce(
        _ lhs: TypedPredicateTerm, _ rhs: TypedPredicateTerm
    ) throws(TypedPredicateError) -> TypedPredicateTerm {
        if case .condition(let node, let defined) = lhs {
            guard let defined else { return lhs }
            let (other, otherDefined) = try optionalCondition(rhs)
            return .condition(defined.and(node).or(defined.negated.and(other)), defined: otherDefined.map {
                defined.or($0)
            })
        }
        if case .constant(let value) = lhs {
            return Self.isNil(value) ? rhs : lhs
        }
        var result: [TypedPredicateTerm.Alternative] = []
        var noneTaken = FetchPredicate.Node.truePredicate
        for alternative in try alternatives(lhs) {
            let notNil = Self.fold(.comparison(.init(alternative.operand, .notEqualTo, .value(.null))))
            let taken = (alternative.condition ?? .truePredicate).and(notNil)
            if taken != .falsePredicate { result.append(.init(condition: taken, operand: alternative.operand)) }
            noneTaken = noneTaken.and(taken.negated)
        }
        if case .condition = rhs {
            throw unsupported("NilCoalesce", "a Boolean default after a value that is not Boolean")
        }
        for alternative in try alternatives(rhs) {
            let condition = noneTaken.and(alternative.condition)
            if condition != .falsePredicate { result.append(.init(condition: condition, operand: alternative.operand)) }
        }
        return .value(result.map { alternative in
            var alternative = alternative
            if alternative.condition == .truePredicate { alternative.condition = nil }
            return alternative
        })
    }

    /// `lhs op rhs` for numbers: the predicate language's arithmetic, pairwise over alternatives (`(a ?? 0) + 1`).
    func arithmetic(
        _ lhs: TypedPredicateTerm, _ operation: FetchPredicate.Arithmetic.Operation, _ rhs: TypedPredicateTerm
    ) throws(TypedPredicateError) -> TypedPredicateTerm {
        var result: [TypedPredicateTerm.Alternative] = []
        for one in try alternatives(lhs) {
            for other in try alternatives(rhs) {
                let operand: FetchPredicate.Operand
                if case .value(let a) = one.operand, case .value(let b) = other.operand {
                    operand = .value(FetchPredicate.Arithmetic.apply(operation, a, b))
                } else {
                    operand = .arithmetic(FetchPredicate.Arithmetic(one.operand, operation, other.operand))
                }
                let condition = (one.condition ?? .truePredicate).and(other.condition)
                if condition == .falsePredicate { continue }
                result.append(.init(condition: condition == .truePredicate ? nil : condition, operand: operand))
            }
        }
        return .value(result)
    }

    /// `test ? then : otherwise`.
    func conditional(
        _ test: FetchPredicate.Node, _ then: TypedPredicateTerm, _ otherwise: TypedPredicateTerm
    ) throws(TypedPredicateError) -> TypedPredicateTerm {
        if case .condition = then {
            return .condition(test.and(try condition(then)).or(test.negated.and(try condition(otherwise))))
        }
        if case .condition = otherwise {
            return .condition(test.and(try condition(then)).or(test.negated.and(try condition(otherwise))))
        }
        var result: [TypedPredicateTerm.Alternative] = []
        for alternative in try alternatives(then) {
            result.append(.init(condition: test.and(alternative.condition), operand: alternative.operand))
        }
        for alternative in try alternatives(otherwise) {
            result.append(.init(condition: test.negated.and(alternative.condition), operand: alternative.operand))
        }
        return .value(result)
    }
}

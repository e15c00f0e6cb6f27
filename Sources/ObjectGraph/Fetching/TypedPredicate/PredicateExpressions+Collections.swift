import Foundation

// Strings, sequences, to-many relationships, ranges and arithmetic on captured values.

extension PredicateExpressions.CollectionContainsCollection: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let text = try translator.translate(base, "contains")
        let part = try translator.translate(other, "contains argument")
        return .condition(try translator.compare(text, .contains, part))
    }
}

extension PredicateExpressions.SequenceStartsWith: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let text = try translator.translate(base, "starts(with:)")
        let start = try translator.translate(prefix, "starts(with:) argument")
        return .condition(try translator.compare(text, .beginsWith, start))
    }
}

extension PredicateExpressions.SequenceContains: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let collection = try translator.translate(sequence, "contains")
        let member = try translator.translate(element, "contains argument")
        switch collection {
        case .constant(let values):
            // A captured array or set: `value IN {…}`.
            let list = try translator.operand(ofConstant: values)
            guard case .aggregate = list else {
                throw translator.invalidValue(values, "contains(_:) needs a captured array or set of values")
            }
            return .condition(try translator.compare(member, .in, .operand(list)))
        case .toMany(let reference):
            // An object among a to-many relationship's: `object IN tags`.
            if let filter = reference.filter {
                let element = try translator.alternatives(member)
                guard element.count == 1, element[0].condition == nil else {
                    throw translator.unsupported("SequenceContains", "the element must be a single object")
                }
                let operation = translator.collectionOperand(
                    .count, of: .init(path: reference.path, scope: reference.scope,
                        filter: filter.and(.comparison(.init(.evaluatedObject, .equalTo, element[0].operand)))))
                return .condition(.comparison(.init(operation, .greaterThan, .value(.integer(0)))))
            }
            return .condition(try translator.compare(member, .in, .operand(.key(reference.path))))
        default:
            throw translator.unsupported(
                "SequenceContains", "contains(_:) is translated for captured collections and to-many relationships")
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let collection = try translator.translate(sequence, "contains(where:)")
        if case .constant(let values) = collection {
            // A captured collection: the test for each element, any of them.
            return .condition(try translator.expand(values, variable: variable.key, body: test, label: "contains(where:) test")
                .reduce(FetchPredicate.Node.falsePredicate) { $0.or($1) })
        }
        guard case .toMany(let reference) = collection else {
            throw translator.unsupported(
                "SequenceContainsWhere", "contains(where:) is translated for to-many relationships")
        }
        let (_, test) = try translator.subquery(over: reference, variable: variable.key, body: self.test, label: "contains(where:) test")
        let filtered = TypedPredicateTerm.ToManyReference(
            path: reference.path, scope: reference.scope, filter: reference.filter.map { $0.and(test) } ?? test)
        let count = translator.collectionOperand(.count, of: filtered)
        return .condition(.comparison(.init(count, .greaterThan, .value(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let collection = try translator.translate(sequence, "allSatisfy")
        if case .constant(let values) = collection {
            // A captured collection: the test for each element, all of them.
            return .condition(try translator.expand(values, variable: variable.key, body: test, label: "allSatisfy test")
                .reduce(FetchPredicate.Node.truePredicate) { $0.and($1) })
        }
        guard case .toMany(let reference) = collection else {
            throw translator.unsupported("SequenceAllSatisfy", "allSatisfy is translated for to-many relationships")
        }
        let (_, test) = try translator.subquery(over: reference, variable: variable.key, body: self.test, label: "allSatisfy test")
        // Every element passes: as many pass as there are (an element whose test is unknown does not pass).
        let passing = translator.collectionOperand(
            .count, of: .init(path: reference.path, scope: reference.scope,
                filter: reference.filter.map { $0.and(test) } ?? test))
        let all = translator.collectionOperand(.count, of: reference)
        return .condition(.comparison(.init(passing, .equalTo, all)))
    }
}

extension PredicateExpressions.Filter: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let collection = try translator.translate(sequence, "filter")
        guard case .toMany(let reference) = collection else {
            throw translator.unsupported("Filter", "filter is translated for to-many relationships (then count or isEmpty)")
        }
        let (_, test) = try translator.subquery(over: reference, variable: variable.key, body: self.filter, label: "filter test")
        return .toMany(.init(
            path: reference.path, scope: reference.scope, filter: reference.filter.map { $0.and(test) } ?? test))
    }
}

extension PredicateExpressions.RangeExpressionContains: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let member = try translator.translate(element, "contains argument")
        if let closed = range as? any ClosedRangeBounds {
            let (lower, upper) = try closed.boundTerms(translator)
            return .condition(try translator.compare(member, .greaterThanOrEqualTo, lower)
                .and(try translator.compare(member, .lessThanOrEqualTo, upper)))
        }
        if let halfOpen = range as? any HalfOpenRangeBounds {
            let (lower, upper) = try halfOpen.boundTerms(translator)
            return .condition(try translator.compare(member, .greaterThanOrEqualTo, lower)
                .and(try translator.compare(member, .lessThan, upper)))
        }
        if case .constant(let value) = try translator.translate(range, "range") {
            throw translator.invalidValue(value, "capture the range's bounds and compare with <= and >= instead")
        }
        throw translator.unsupported("RangeExpressionContains", "only ranges written as a...b or a..<b are translated")
    }
}

/// `PredicateExpressions.ClosedRange`, whose bounds a range test reads.
protocol ClosedRangeBounds {
    func boundTerms(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> (TypedPredicateTerm, TypedPredicateTerm)
}

/// `PredicateExpressions.Range`, whose bounds a range test reads.
protocol HalfOpenRangeBounds {
    func boundTerms(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> (TypedPredicateTerm, TypedPredicateTerm)
}

extension PredicateExpressions.ClosedRange: ClosedRangeBounds {
    func boundTerms(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> (TypedPredicateTerm, TypedPredicateTerm) {
        (try translator.translate(lower, "range lower bound"), try translator.translate(upper, "range upper bound"))
    }
}

extension PredicateExpressions.Range: HalfOpenRangeBounds {
    func boundTerms(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> (TypedPredicateTerm, TypedPredicateTerm) {
        (try translator.translate(lower, "range lower bound"), try translator.translate(upper, "range upper bound"))
    }
}

/// Expressions computed from captured values only are evaluated once, by Foundation, at translation time;
/// arithmetic on stored values becomes the predicate language's arithmetic (`age + 1`).
protocol ConstantFoldableExpression: FetchPredicateExpressionConvertible {
    var constantChildren: [(Any, String)] { get }
    func evaluateConstant() throws -> Any
    /// The operation when this is arithmetic the predicate language has; nil otherwise.
    var arithmeticOperation: FetchPredicate.Arithmetic.Operation? { get }
}

extension ConstantFoldableExpression {
    var arithmeticOperation: FetchPredicate.Arithmetic.Operation? { nil }

    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        var terms: [TypedPredicateTerm] = []
        for (child, label) in constantChildren { terms.append(try translator.translate(child, label)) }
        let allConstant = terms.allSatisfy { if case .constant = $0 { true } else { false } }
        if !allConstant {
            guard let operation = arithmeticOperation else {
                throw translator.unsupported(
                    TypedPredicateTranslator.constructName(self),
                    "this is translated only when it is computed from captured values; stored values have no "
                        + "counterpart for it in ObjectGraph's predicates")
            }
            // Unary minus is `0 - x`.
            let operands = terms.count == 1 ? [.operand(.value(.integer(0))), terms[0]] : terms
            return try translator.arithmetic(operands[0], operation, operands[1])
        }
        do {
            return .constant(try evaluateConstant())
        } catch {
            throw translator.invalidValue(self, "evaluating it failed: \(error)")
        }
    }
}

extension PredicateExpressions.Arithmetic: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(lhs, "arithmetic lhs"), (rhs, "arithmetic rhs")] }
    var arithmeticOperation: FetchPredicate.Arithmetic.Operation? {
        switch op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        @unknown default: nil
        }
    }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) }
}

extension PredicateExpressions.UnaryMinus: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(wrapped, "unary minus")] }
    var arithmeticOperation: FetchPredicate.Arithmetic.Operation? { .subtract }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) }
}

extension PredicateExpressions.IntDivision: ConstantFoldableExpression {
    // Not translated on stored values: Swift truncates, the predicate language divides exactly.
    var constantChildren: [(Any, String)] { [(lhs, "division lhs"), (rhs, "division rhs")] }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) }
}

extension PredicateExpressions.FloatDivision: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(lhs, "division lhs"), (rhs, "division rhs")] }
    var arithmeticOperation: FetchPredicate.Arithmetic.Operation? { .divide }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) }
}

extension PredicateExpressions.IntRemainder: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(lhs, "remainder lhs"), (rhs, "remainder rhs")] }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) }
}

extension PredicateExpressions.SequenceMinimum: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(elements, "min()")] }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) as Any }
}

extension PredicateExpressions.SequenceMaximum: ConstantFoldableExpression {
    var constantChildren: [(Any, String)] { [(elements, "max()")] }
    func evaluateConstant() throws -> Any { try evaluate(PredicateBindings()) as Any }
}

import Foundation

// Variables, values, key paths, logic and comparisons: the core of what `#Predicate` produces.

extension PredicateExpressions.Variable: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        try translator.term(of: key)
    }
}

extension PredicateExpressions.Value: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        .constant(Wrapped?.none as Any)
    }
}

extension PredicateExpressions.KeyPath: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let rootTerm = try translator.translate(root, "root")
        return try translator.keyPath(keyPath, on: rootTerm, rootType: Root.Output.self)
    }
}

extension PredicateExpressions.Conjunction: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let left = try translator.condition(translator.translate(lhs, "&& lhs"))
        let right = try translator.condition(translator.translate(rhs, "&& rhs"))
        if case .and(let leftOperands) = left, case .and(let rightOperands) = right {
            return .condition(.and(leftOperands + rightOperands))
        }
        if case .and(let leftOperands) = left, right != .truePredicate, right != .falsePredicate {
            return .condition(.and(leftOperands + [right]))
        }
        return .condition(left.and(right))
    }
}

extension PredicateExpressions.Disjunction: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let left = try translator.condition(translator.translate(lhs, "|| lhs"))
        let right = try translator.condition(translator.translate(rhs, "|| rhs"))
        if case .or(let leftOperands) = left, right != .truePredicate, right != .falsePredicate {
            return .condition(.or(leftOperands + [right]))
        }
        return .condition(left.or(right))
    }
}

extension PredicateExpressions.Negation: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        .condition(try translator.condition(translator.translate(wrapped, "!")).negated)
    }
}

extension PredicateExpressions.Equal: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let left = try translator.translate(lhs, "== lhs")
        let right = try translator.translate(rhs, "== rhs")
        return .condition(try translator.compare(left, .equalTo, right))
    }
}

extension PredicateExpressions.NotEqual: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let left = try translator.translate(lhs, "!= lhs")
        let right = try translator.translate(rhs, "!= rhs")
        return .condition(try translator.compare(left, .notEqualTo, right))
    }
}

extension PredicateExpressions.Comparison: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let operation: FetchPredicate.Operator
        switch op {
        case .lessThan: operation = .lessThan
        case .lessThanOrEqual: operation = .lessThanOrEqualTo
        case .greaterThan: operation = .greaterThan
        case .greaterThanOrEqual: operation = .greaterThanOrEqualTo
        @unknown default:
            throw translator.unsupported("Comparison(\(op))", "an unknown comparison operator")
        }
        let left = try translator.translate(lhs, "\(operation.rawValue) lhs")
        let right = try translator.translate(rhs, "\(operation.rawValue) rhs")
        return .condition(try translator.compare(left, operation, right))
    }
}

extension PredicateExpressions.Conditional: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let condition = try translator.condition(translator.translate(test, "? test"))
        let then = try translator.translate(trueBranch, "? then")
        let otherwise = try translator.translate(falseBranch, ": else")
        if case .constant = then, case .constant = otherwise, condition == .truePredicate || condition == .falsePredicate {
            return condition == .truePredicate ? then : otherwise
        }
        return try translator.conditional(condition, then, otherwise)
    }
}

extension PredicateExpressions.NilCoalesce: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let left = try translator.translate(lhs, "?? lhs")
        let right = try translator.translate(rhs, "?? rhs")
        return try translator.coalesce(left, right)
    }
}

extension PredicateExpressions.ForcedUnwrap: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        // A nil value reads as nil rather than trapping, as a nil key path does in the format syntax.
        let term = try translator.translate(inner, "!")
        if case .condition(let node, _) = term { return .condition(node) }
        return term
    }
}

extension PredicateExpressions.OptionalFlatMap: FetchPredicateExpressionConvertible {
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm {
        let wrappedTerm = try translator.translate(wrapped, "flatMap")
        if case .constant(let value) = wrappedTerm, TypedPredicateTranslator.isNil(value) {
            return .constant(Result?.none as Any)
        }
        translator.bind(variable.key, to: wrappedTerm)
        let result = try translator.translate(transform, "flatMap transform")
        // A condition computed from an optional value is nil when that value is nil.
        guard case .condition(let node, let defined) = result else { return result }
        let notNil: FetchPredicate.Node
        switch wrappedTerm {
        case .object(let reference):
            notNil = reference.path.isEmpty
                ? .truePredicate : .comparison(.init(reference.operand, .notEqualTo, .value(.null)))
        case .value(let alternatives):
            var any = FetchPredicate.Node.falsePredicate
            for alternative in alternatives {
                let test = TypedPredicateTranslator.fold(
                    .comparison(.init(alternative.operand, .notEqualTo, .value(.null))))
                any = any.or((alternative.condition ?? .truePredicate).and(test))
            }
            notNil = any
        default:
            return result
        }
        let combined = notNil.and(defined)
        return .condition(node, defined: combined == .truePredicate ? nil : combined)
    }
}

import Foundation

/// A Foundation predicate expression that ObjectGraph can translate into its predicate tree.
///
/// The `PredicateExpressions` types conform in the files beside this one. Children are translated through
/// ``TypedPredicateTranslator/translate(_:_:)``, which names the child's type when it does not conform,
/// so an unsupported construct is reported exactly where it appears.
protocol FetchPredicateExpressionConvertible {
    /// The term this expression stands for.
    func fetchPredicateTerm(_ translator: TypedPredicateTranslator) throws(TypedPredicateError) -> TypedPredicateTerm
}

/// Turns the expression tree of a Foundation `Predicate` into a ``FetchPredicate/Node``.
///
/// Variables of the predicate and of its closures are bound to terms; key paths are named through
/// ``ModelKeyPathProbe``; closures over to-many relationships become `SUBQUERY`s whose key paths are read
/// from the element. Everything else is refused with a ``TypedPredicateError``.
final class TypedPredicateTranslator {
    private struct Binding {
        var term: TypedPredicateTerm
        var scope: Int
    }

    private var bindings: [PredicateExpressions.VariableID: Binding] = [:]
    /// Where the translation is, outermost first, for errors.
    private(set) var path: [String] = []
    /// How many closures over to-many relationships enclose the expression being translated.
    private(set) var scope = 0
    private var subqueryCounter = 0

    /// Translates the expression of `Predicate<Root>`, whose variable is the fetched object.
    static func node<Root>(
        of predicate: Predicate<Root>
    ) throws(TypedPredicateError) -> FetchPredicate.Node {
        let translator = TypedPredicateTranslator()
        guard Root.self is ManagedObject.Type else {
            throw TypedPredicateError(
                kind: .unsupported, construct: "Predicate<\(Root.self)>",
                reason: "only predicates over ManagedObject subclasses can be fetched")
        }
        translator.bind(predicate.variable.key, to: .object(.init(path: [], scope: 0)))
        let term = try translator.translate(predicate.expression, "Predicate")
        return try translator.condition(term)
    }

    // MARK: Walking

    /// Translates a child expression, recording `label` in the error path.
    func translate(_ expression: Any, _ label: String) throws(TypedPredicateError) -> TypedPredicateTerm {
        path.append(label)
        defer { path.removeLast() }
        guard let convertible = expression as? any FetchPredicateExpressionConvertible else {
            throw unsupported(
                Self.constructName(expression),
                "this expression has no counterpart in ObjectGraph's predicates (see the README's list of "
                    + "supported #Predicate constructs)")
        }
        return try convertible.fetchPredicateTerm(self)
    }

    /// Binds a closure or predicate variable to the term it stands for in the current scope.
    func bind(_ variable: PredicateExpressions.VariableID, to term: TypedPredicateTerm) {
        bindings[variable] = Binding(term: term, scope: scope)
    }

    /// The term a variable stands for.
    func term(of variable: PredicateExpressions.VariableID) throws(TypedPredicateError) -> TypedPredicateTerm {
        guard let binding = bindings[variable] else {
            throw unsupported("Variable", "the variable is not bound by the predicate or an enclosing closure")
        }
        if binding.scope != scope, !Self.isConstant(binding.term) {
            throw unsupported(
                "Variable",
                "a closure over a to-many relationship can only read its own element; an outer object or "
                    + "value read inside it has no counterpart in SUBQUERY")
        }
        return binding.term
    }

    /// Translates `body` as the predicate of a subquery over `collection`, with `variable` bound to the
    /// element; returns the subquery's variable name and predicate.
    func subquery(
        over collection: TypedPredicateTerm.ToManyReference, variable: PredicateExpressions.VariableID,
        body: Any, label: String
    ) throws(TypedPredicateError) -> (variable: String, predicate: FetchPredicate.Node) {
        subqueryCounter += 1
        let name = "v\(subqueryCounter)"
        scope += 1
        defer { scope -= 1 }
        bind(variable, to: .object(.init(path: [], scope: scope)))
        let term = try translate(body, label)
        return (name, try condition(term))
    }

    /// The conditions `body` stands for with `variable` bound to each element of a captured collection in turn
    /// (`terms.allSatisfy { $0.name.localizedStandardContains(term) }` becomes one condition per term).
    func expand(
        _ collection: Any, variable: PredicateExpressions.VariableID, body: Any, label: String
    ) throws(TypedPredicateError) -> [FetchPredicate.Node] {
        guard let sequence = collection as? any Sequence else {
            throw invalidValue(collection, "a captured \(type(of: collection)) is not a collection")
        }
        var elements: [Any] = []
        for element in sequence { elements.append(element) }
        guard elements.count <= Self.maximumExpandedElements else {
            throw invalidValue(
                collection,
                "a closure over a captured collection is written out once per element; \(elements.count) elements "
                    + "are more than \(Self.maximumExpandedElements) (use contains(_:) for membership)")
        }
        var conditions: [FetchPredicate.Node] = []
        for element in elements {
            bind(variable, to: .constant(element))
            conditions.append(try condition(translate(body, label)))
        }
        return conditions
    }

    /// The most elements a closure over a captured collection is written out for.
    static let maximumExpandedElements = 1_000

    /// A collection operation (`@count`) over a to-many reference, through a subquery when it is filtered.
    func collectionOperand(
        _ function: FetchPredicate.CollectionOperation.Function, of reference: TypedPredicateTerm.ToManyReference
    ) -> FetchPredicate.Operand {
        if let filter = reference.filter {
            subqueryCounter += 1
            let subquery = FetchPredicate.Subquery(
                collection: reference.path, variable: "v\(subqueryCounter)", predicate: filter)
            return .collectionOperation(.init(function, of: .subquery(subquery)))
        }
        return .collectionOperation(.init(function, of: .keyPath(reference.path)))
    }

    // MARK: Conversions between terms

    /// The term as a condition: a Boolean value compared with `YES`, an optional condition's nil as false.
    func condition(_ term: TypedPredicateTerm) throws(TypedPredicateError) -> FetchPredicate.Node {
        switch term {
        case .condition(let node, let defined):
            return defined.map { $0.and(node) } ?? node
        case .value(let alternatives):
            var result = FetchPredicate.Node.falsePredicate
            for alternative in alternatives {
                let test = Self.fold(.comparison(.init(alternative.operand, .equalTo, .value(.boolean(true)))))
                result = result.or(alternative.condition.map { $0.and(test) } ?? test)
            }
            return result
        case .constant(let value):
            if let flag = value as? Bool { return flag ? .truePredicate : .falsePredicate }
            if let flag = value as? Bool?, flag == nil { return .falsePredicate }
            throw invalidValue(value, "a \(type(of: value)) is not a condition")
        case .object, .toMany:
            throw unsupported("object", "an object or a to-many relationship is not a condition")
        }
    }

    /// The term as value alternatives (key paths, constants, objects).
    func alternatives(_ term: TypedPredicateTerm) throws(TypedPredicateError) -> [TypedPredicateTerm.Alternative] {
        switch term {
        case .value(let alternatives):
            return alternatives
        case .object(let reference):
            return [.init(condition: nil, operand: reference.operand)]
        case .constant(let value):
            return [.init(condition: nil, operand: try operand(ofConstant: value))]
        case .condition:
            throw unsupported("condition", "a condition cannot be used as a value here")
        case .toMany:
            throw unsupported(
                "to-many relationship",
                "a to-many relationship is not a single value; use contains(where:), allSatisfy, count or isEmpty")
        }
    }

    /// The operand a captured Swift value stands for: a constant, an object, or a collection of them.
    func operand(ofConstant value: Any) throws(TypedPredicateError) -> FetchPredicate.Operand {
        guard let argument = value as? any PredicateArgument else {
            if Self.isNil(value) { return .value(.null) }
            throw invalidValue(value, "a captured \(type(of: value)) cannot be compared with stored values")
        }
        do {
            return try FetchPredicate.Operand.operand(for: argument.predicateArgumentValue, location: nil).normalized()
        } catch {
            throw invalidValue(value, error.description)
        }
    }

    // MARK: Errors

    func unsupported(_ construct: String, _ reason: String) -> TypedPredicateError {
        TypedPredicateError(kind: .unsupported, construct: construct, path: path, reason: reason)
    }

    func invalidValue(_ value: Any, _ reason: String) -> TypedPredicateError {
        TypedPredicateError(kind: .invalidValue, construct: "\(type(of: value))", path: path, reason: reason)
    }

    func unknownKeyPath(_ keyPath: AnyKeyPath, _ reason: String) -> TypedPredicateError {
        TypedPredicateError(
            kind: .unknownKeyPath, construct: Self.keyPathName(keyPath), path: path, reason: reason)
    }

    /// A key path as people read it: `\Person.<computed … (Int64)>` is all Swift keeps of its name on Linux.
    static func keyPathName(_ keyPath: AnyKeyPath) -> String {
        let description = "\(keyPath)"
        return description.isEmpty ? "\\\(type(of: keyPath).rootType) → \(type(of: keyPath).valueType)" : description
    }

    /// The unqualified type name of an expression (`StringContainsRegex`).
    static func constructName(_ expression: Any) -> String {
        let full = "\(type(of: expression))"
        let base = full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
        return base.split(separator: ".").last.map(String.init) ?? base
    }

    // MARK: Constants

    static func isNil(_ value: Any) -> Bool {
        if case Optional<Any>.none = value { return true }
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    static func isConstant(_ term: TypedPredicateTerm) -> Bool {
        switch term {
        case .constant: return true
        case .value(let alternatives):
            return alternatives.allSatisfy { alternative in
                alternative.condition == nil && { if case .value = alternative.operand { true } else { false } }()
            }
        default: return false
        }
    }

    /// A comparison of two constants replaced by its answer, when it is true or false.
    static func fold(_ node: FetchPredicate.Node) -> FetchPredicate.Node {
        guard case .comparison(let comparison) = node else { return node }
        for side in [comparison.left, comparison.right] {
            var readsObject = false
            side.visit { operand in
                switch operand {
                case .value, .aggregate: break
                default: readsObject = true
                }
            }
            if readsObject { return node }
        }
        let predicate = FetchPredicate(node)
        if predicate.evaluate({ _ in .null }) { return .truePredicate }
        if FetchPredicate.not(predicate).evaluate({ _ in .null }) { return .falsePredicate }
        return node
    }
}

import Foundation

/// What one Foundation predicate expression stands for while it is being translated into a
/// ``FetchPredicate``: a condition, a value (a key path or a constant, possibly one of several chosen by
/// conditions, for `??` and `? :`), an object, a to-many relationship, or a captured Swift value.
enum TypedPredicateTerm {
    /// One possible value of a term, taken when `condition` holds (always, when nil).
    struct Alternative {
        var condition: FetchPredicate.Node?
        var operand: FetchPredicate.Operand
    }

    /// An object reached from the evaluated object (or, inside a closure over a to-many relationship, from
    /// the element) through to-one relationships; an empty path is the object itself.
    struct ObjectReference {
        var path: [String]
        /// How many closures over to-many relationships enclose the object's variable (0: the fetched object).
        var scope: Int

        var operand: FetchPredicate.Operand {
            path.isEmpty ? .evaluatedObject : .key(path.joined(separator: "."))
        }
    }

    /// A to-many relationship reached from an object, possibly filtered (`filter { … }`).
    struct ToManyReference {
        var path: String
        var scope: Int
        var filter: FetchPredicate.Node?
    }

    /// A Boolean; `defined`, when present, is the condition under which an optional Boolean is not nil
    /// (`$0.name?.starts(with: "A")` is nil for a nil name).
    case condition(FetchPredicate.Node, defined: FetchPredicate.Node?)
    /// A single value, one of several alternatives whose conditions exclude each other.
    case value([Alternative])
    /// An object.
    case object(ObjectReference)
    /// The objects of a to-many relationship.
    case toMany(ToManyReference)
    /// A value captured by the predicate (`Value`), kept as Swift gave it until its use is known.
    case constant(Any)

    /// A single unconditional operand.
    static func operand(_ operand: FetchPredicate.Operand) -> TypedPredicateTerm {
        .value([Alternative(condition: nil, operand: operand)])
    }

    /// A condition that is never nil.
    static func condition(_ node: FetchPredicate.Node) -> TypedPredicateTerm {
        .condition(node, defined: nil)
    }
}

extension FetchPredicate.Node {
    /// `self AND other`, leaving out an absent or always-true side.
    func and(_ other: FetchPredicate.Node?) -> FetchPredicate.Node {
        guard let other else { return self }
        switch (self, other) {
        case (.truePredicate, _): return other
        case (_, .truePredicate): return self
        case (.falsePredicate, _), (_, .falsePredicate): return .falsePredicate
        default: return .and([self, other])
        }
    }

    /// `self OR other`, leaving out an always-false side.
    func or(_ other: FetchPredicate.Node) -> FetchPredicate.Node {
        switch (self, other) {
        case (.falsePredicate, _): return other
        case (_, .falsePredicate): return self
        case (.truePredicate, _), (_, .truePredicate): return .truePredicate
        default: return .or([self, other])
        }
    }

    /// `NOT self`, folding constants.
    var negated: FetchPredicate.Node {
        switch self {
        case .truePredicate: .falsePredicate
        case .falsePredicate: .truePredicate
        case .not(let inner): inner
        // `==` and `!=` are two-valued, so their negation is the other one.
        case .comparison(var comparison) where comparison.modifier == .direct
            && (comparison.operation == .equalTo || comparison.operation == .notEqualTo):
            {
                comparison.operation = comparison.operation == .equalTo ? .notEqualTo : .equalTo
                return .comparison(comparison)
            }()
        default: .not(self)
        }
    }
}

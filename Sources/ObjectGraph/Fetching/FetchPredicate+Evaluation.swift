import Foundation

extension FetchPredicate {
    /// Whether an object satisfies the predicate, evaluated in memory on its values.
    ///
    /// `valueForKey` returns the object's value for a key (``AttributeValue/null`` for nil or unknown keys).
    /// A key path such as `company.name` is passed whole, so a dictionary of flattened values works; use
    /// ``evaluate(with:)`` to follow relationships of a managed object. The answer is the one the SQLite
    /// store gives for the same values: comparisons are three-valued internally (true, false, unknown)
    /// exactly as in SQL, and only a predicate that comes out true matches. A comparison involving an
    /// unsubstituted `$VARIABLE` is unknown; see ``checkAllVariablesSubstituted()``.
    public func evaluate(_ valueForKey: (String) -> AttributeValue) -> Bool {
        withoutActuallyEscaping(valueForKey) { valueForKey in
            Evaluator(subject: KeyValueSubject(read: valueForKey)).evaluate(node) == .true
        }
    }

    /// Whether `object` satisfies the predicate, evaluated in memory: key paths follow its relationships
    /// (firing faults as needed), to-many paths and collection operators see the related objects as they
    /// are in the object's context, unsaved changes included, and `SELF` is the object.
    ///
    /// The answer is the one a fetch from the SQLite store gives for the same saved values. Call it on the
    /// object's context's queue.
    public func evaluate(with object: ManagedObject) -> Bool {
        Evaluator(subject: object).evaluate(node) == .true
    }

    /// Whether the object a store row describes satisfies the predicate (the in-memory store's entry point).
    func evaluate(subject: any PredicateSubject) -> Bool {
        Evaluator(subject: subject).evaluate(node) == .true
    }

    /// The three truth values of SQL, which in-memory evaluation follows so that it agrees with the store.
    enum Truth: Sendable, Hashable {
        case `true`, `false`, unknown

        init(_ flag: Bool) { self = flag ? .true : .false }

        static prefix func ! (operand: Truth) -> Truth {
            switch operand {
            case .true: .false
            case .false: .true
            case .unknown: .unknown
            }
        }

        /// Kleene conjunction: false wins, then unknown.
        static func all(_ values: some Sequence<Truth>) -> Truth {
            var result = Truth.true
            for value in values {
                if value == .false { return .false }
                if value == .unknown { result = .unknown }
            }
            return result
        }

        /// Kleene disjunction: true wins, then unknown.
        static func any(_ values: some Sequence<Truth>) -> Truth {
            var result = Truth.false
            for value in values {
                if value == .true { return .true }
                if value == .unknown { result = .unknown }
            }
            return result
        }
    }

    /// An expression's value for one object.
    enum Resolved {
        case value(AttributeValue)
        /// A managed object, by ID (`SELF`, a relationship's destination, an object argument).
        case object(ManagedObjectID)
        /// A literal collection (`{…}`, a `%@` array).
        case collection([Resolved])
        /// The values along a to-many key path, one per element reached.
        case many([Resolved])
        /// An unsubstituted variable: every comparison with it is unknown.
        case unresolved
    }

    struct Evaluator {
        let subject: any PredicateSubject

        func evaluate(_ node: Node) -> Truth {
            switch node {
            case .truePredicate: .true
            case .falsePredicate: .false
            case .comparison(let comparison): evaluate(comparison)
            case .not(let operand): !evaluate(operand)
            case .and(let operands): all(operands)
            case .or(let operands): any(operands)
            }
        }

        /// Kleene conjunction, stopping at the first false.
        private func all(_ operands: [Node]) -> Truth {
            var result = Truth.true
            for operand in operands {
                switch evaluate(operand) {
                case .false: return .false
                case .unknown: result = .unknown
                case .true: break
                }
            }
            return result
        }

        /// Kleene disjunction, stopping at the first true.
        private func any(_ operands: [Node]) -> Truth {
            var result = Truth.false
            for operand in operands {
                switch evaluate(operand) {
                case .true: return .true
                case .unknown: result = .unknown
                case .false: break
                }
            }
            return result
        }

        func resolve(_ expression: Operand) -> Resolved {
            switch expression {
            case .key(let path, _): KeyPathReader.value(of: path, on: subject)
            case .value(let value): .value(value)
            case .variable: .unresolved
            case .aggregate(let elements): .collection(elements.map(resolve))
            case .evaluatedObject: KeyPathReader.identity(of: subject)
            case .object(let id): .object(id)
            case .collectionOperation(let operation, _): .value(KeyPathReader.apply(operation, on: subject))
            case .arithmetic(let arithmetic): arithmeticValue(arithmetic)
            case .function(let call): functionValue(call)
            case .element(let index, _): KeyPathReader.value(of: index, on: subject)
            }
        }

        /// A function's value: nil unless every argument is a single value (see ``FunctionCall``).
        func functionValue(_ call: FunctionCall) -> Resolved {
            var arguments: [AttributeValue] = []
            for argument in call.arguments {
                switch resolve(argument) {
                case .unresolved: return .unresolved
                case .value(let value): arguments.append(FunctionCall.Function.storedForm(value))
                default: return .value(.null)
                }
            }
            return .value(call.function.apply(to: arguments))
        }

        /// An arithmetic expression's value: nil unless both sides are single numbers.
        func arithmeticValue(_ arithmetic: Arithmetic) -> Resolved {
            let left = resolve(arithmetic.left)
            let right = resolve(arithmetic.right)
            switch (left, right) {
            case (.unresolved, _), (_, .unresolved):
                return .unresolved
            case (.value(let a), .value(let b)):
                return .value(Arithmetic.apply(arithmetic.operation, a, b))
            default:
                return .value(.null)
            }
        }

        func evaluate(_ comparison: Comparison) -> Truth {
            let left = resolve(comparison.left)
            let right = resolve(comparison.right)
            let operation = comparison.operation
            let options = comparison.options
            if case .unresolved = left { return .unknown }
            let elements: [Resolved]
            switch (comparison.modifier, left) {
            case (.direct, _):
                return Self.compare(operation, left, right, options)
            case (_, .collection(let values)), (_, .many(let values)):
                elements = values
            default:
                elements = [left]
            }
            // Qualified comparisons are two-valued, as SQL's EXISTS is.
            var found = false
            for element in elements {
                let holds = Self.compare(operation, element, right, options) == .true
                if comparison.modifier == .all, !holds { return .false }
                if comparison.modifier != .all, holds {
                    found = true
                    break
                }
            }
            switch comparison.modifier {
            case .all: return .true
            case .none: return Truth(!found)
            default: return Truth(found)
            }
        }

        /// A comparison without qualifier. A to-many key path's values are the collection `IN` looks in (on
        /// the right) and `CONTAINS` looks in (on the left); anywhere else the comparison holds when it holds
        /// for one of them (an implicit, two-valued `ANY`).
        static func compare(_ operation: Operator, _ left: Resolved, _ right: Resolved, _ options: ComparisonOptions)
            -> Truth
        {
            switch (operation, left, right) {
            case (.in, _, .collection(let elements)), (.in, _, .many(let elements)):
                if case .many(let members) = left { return anyTrue(members) { compare(operation, $0, right, options) } }
                let membership = self.membership(left, in: elements, options)
                if case .many = right { return membership == .true ? .true : .false }
                return membership
            case (.contains, .collection(let elements), _), (.contains, .many(let elements), _):
                if case .many(let members) = right { return anyTrue(members) { compare(operation, left, $0, options) } }
                let membership = self.membership(right, in: elements, options)
                if case .many = left { return membership == .true ? .true : .false }
                return membership
            case (_, .many(let members), _):
                return anyTrue(members) { compare(operation, $0, right, options) }
            case (_, _, .many(let members)):
                return anyTrue(members) { compare(operation, left, $0, options) }
            case (.in, _, _):
                return scalar(.contains, right, left, options)
            case (.between, _, .collection(let bounds)) where bounds.count == 2:
                let lower = scalar(.greaterThanOrEqualTo, left, bounds[0], options)
                if lower == .false { return .false }
                let upper = scalar(.lessThanOrEqualTo, left, bounds[1], options)
                if upper == .false { return .false }
                return lower == .true && upper == .true ? .true : .unknown
            default:
                return scalar(operation, left, right, options)
            }
        }

        static func anyTrue(_ members: [Resolved], _ test: (Resolved) -> Truth) -> Truth {
            for member in members where test(member) == .true { return .true }
            return .false
        }

        /// Whether `member` equals one of `elements` (unknown only through unsubstituted variables).
        static func membership(_ member: Resolved, in elements: [Resolved], _ options: ComparisonOptions) -> Truth {
            var result = Truth.false
            for element in elements {
                switch scalar(.equalTo, member, element, options) {
                case .true: return .true
                case .unknown: result = .unknown
                case .false: break
                }
            }
            return result
        }

        /// A comparison of two single values; collections where single values belong are unknown (such trees
        /// are refused when parsed, and when compiled to SQL). Objects are equal when their IDs are, and
        /// never equal to a value (nil included); they have no order.
        static func scalar(_ operation: Operator, _ left: Resolved, _ right: Resolved, _ options: ComparisonOptions)
            -> Truth
        {
            switch (left, right) {
            case let (.value(leftValue), .value(rightValue)):
                return ValueComparison.compare(leftValue, operation, rightValue, options: options)
            case (.object, .object), (.object, .value), (.value, .object):
                var equal = false
                if case .object(let a) = left, case .object(let b) = right { equal = a == b }
                switch operation {
                case .equalTo, .in, .contains: return Truth(equal)
                case .notEqualTo: return Truth(!equal)
                default: return .false
                }
            default:
                return .unknown
            }
        }
    }
}

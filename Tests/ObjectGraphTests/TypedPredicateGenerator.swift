import Foundation
import ObjectGraph
import TestSupport

/// Random `Predicate<TypedPerson>`s built from Foundation's expression types (as `#Predicate` builds
/// them), each with a format-string twin that means the same — written the way a person would write it,
/// often differently from the translation (`ANY tags.name == x` for `tags.contains { $0.name == x }`,
/// `BETWEEN` for a closed range), so that agreement checks the translation, not a copy of it.
struct TypedPredicateGenerator {
    typealias Expression = any StandardPredicateExpression<Bool>
    typealias Person = PredicateExpressions.Variable<TypedPerson>

    /// One generated predicate part and its twin (a format string with `%@` arguments).
    struct Part {
        var expression: Expression
        var format: String
        var arguments: [any PredicateArgument]
    }

    var random: SeededRandom

    static let strings: [String?] = [
        nil, "", "a", "Zoë", "Zoe\u{308}", "zoe", "Ærøskøbing", "東京", "Straße", "ß", "ss", "émile", "Émile",
        "x' OR 1=1 --", "\"; DROP TABLE t; --", "%@", "a*b", "abc", "ABC", "swift", "Swift", "sqlite", "Ærø",
    ]
    static let prefixes = ["", "a", "Z", "Zo", "É", "é", "東", "x'", "%", "s", "S"]
    static let tagNames: [String?] = ["swift", "Swift", "SWIFT", "sqlite", "Ærø", "aero", "東京", "ß", "ss", nil, "x"]
    static let integers: [Int64] = [-5, 0, 1, 2, 3, 7, 10, 42, 100, 101]
    static let doubles: [Double] = [-2.5, 0, 0.1, 0.3, 0.5, 1, 3.5, 7.25, 100]

    /// A whole predicate and its twin.
    mutating func next() -> (Predicate<TypedPerson>, format: String, arguments: [any PredicateArgument]) {
        var format = ""
        var arguments: [any PredicateArgument] = []
        let predicate = Predicate<TypedPerson> { person in
            let part = self.part(person, depth: 0)
            format = part.format
            arguments = part.arguments
            return part.expression
        }
        return (predicate, format, arguments)
    }

    mutating func part(_ person: Person, depth: Int) -> Part {
        if depth < 3, random.chance(0.45) {
            let left = part(person, depth: depth + 1)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                return Part(
                    expression: Self.not(left.expression), format: "NOT (\(left.format))", arguments: left.arguments)
            case 1:
                let right = part(person, depth: depth + 1)
                return Part(
                    expression: Self.or(left.expression, right.expression), format: "(\(left.format)) OR (\(right.format))",
                    arguments: left.arguments + right.arguments)
            case 2 where depth < 2:
                // `(active ?? false) ? left : right`
                let right = part(person, depth: depth + 1)
                let test = PredicateExpressions.NilCoalesce(lhs: Self.key(person, \.active), rhs: PredicateExpressions.Value(false))
                let active = "(active != nil AND active == YES)"
                return Part(
                    expression: Self.conditional(test, left.expression, right.expression),
                    format: "(\(active) AND (\(left.format))) OR (NOT \(active) AND (\(right.format)))",
                    arguments: left.arguments + right.arguments)
            default:
                let right = part(person, depth: depth + 1)
                return Part(
                    expression: Self.and(left.expression, right.expression),
                    format: "(\(left.format)) AND (\(right.format))", arguments: left.arguments + right.arguments)
            }
        }
        return atom(person)
    }

    // swiftlint:disable:next function_body_length cyclomatic_complexity
    mutating func atom(_ person: Person) -> Part {
        typealias E = PredicateExpressions
        switch Int.random(in: 0..<28, using: &random) {
        case 0:
            let text = random.pick(Self.strings)
            return Part(
                expression: E.Equal(lhs: Self.key(person, \.name), rhs: E.Value(text)), format: "name == %@",
                arguments: [text])
        case 1:
            let text = random.pick(Self.strings)
            return Part(
                expression: E.NotEqual(lhs: Self.key(person, \.nickname), rhs: E.Value(text)),
                format: "nickname != %@", arguments: [text])
        case 2:
            let prefix = random.pick(Self.prefixes)
            let expression = E.NilCoalesce(
                lhs: E.OptionalFlatMap(Self.key(person, \.name)) { name in
                    E.SequenceStartsWith(base: name, prefix: E.Value(prefix))
                },
                rhs: E.Value(false))
            return Part(expression: expression, format: "(name != nil AND name BEGINSWITH %@)", arguments: [prefix])
        case 3:
            let part = random.pick(Self.prefixes)
            let expression = E.CollectionContainsCollection(base: E.ForcedUnwrap(Self.key(person, \.nickname)), other: E.Value(part))
            return Part(expression: expression, format: "nickname CONTAINS %@", arguments: [part])
        case 4:
            let (operation, symbol) = randomOperator()
            let value = random.pick(Self.integers)
            return Part(
                expression: E.Comparison(lhs: E.ForcedUnwrap(Self.key(person, \.age)), rhs: E.Value(value), op: operation),
                format: "age \(symbol) %@", arguments: [value])
        case 5:
            // `(age ?? fallback) op value`: the fallback's comparison is decided here.
            let (operation, symbol) = randomOperator()
            let value = random.pick(Self.integers)
            let fallback = random.pick(Self.integers)
            let fallbackHolds = Self.holds(fallback, operation, value)
            let expression = E.Comparison(
                lhs: E.NilCoalesce(lhs: Self.key(person, \.age), rhs: E.Value(fallback)), rhs: E.Value(value), op: operation)
            return Part(
                expression: expression,
                format: "(age != nil AND age \(symbol) %@)" + (fallbackHolds ? " OR age == nil" : ""), arguments: [value])
        case 6:
            let (operation, symbol) = randomOperator()
            let value = random.pick(Self.doubles)
            return Part(
                expression: E.Comparison(lhs: E.ForcedUnwrap(Self.key(person, \.score)), rhs: E.Value(value), op: operation),
                format: "score \(symbol) %@", arguments: [value])
        case 7:
            let flag = random.pick([true, false, nil] as [Bool?])
            return Part(
                expression: E.Equal(lhs: Self.key(person, \.active), rhs: E.Value(flag)),
                format: "active == %@", arguments: [flag])
        case 8:
            return Part(
                expression: E.NilCoalesce(lhs: Self.key(person, \.active), rhs: E.Value(false)),
                format: "(active != nil AND active == YES)", arguments: [])
        case 9:
            let text = random.pick(Self.strings)
            let expression = E.Equal(
                lhs: E.OptionalFlatMap(Self.key(person, \.company)) { company in
                    E.KeyPath(root: company, keyPath: \TypedCompany.name)
                },
                rhs: E.Value(text))
            return Part(expression: expression, format: "company.name == %@", arguments: [text])
        case 10:
            if random.chance(0.5) {
                return Part(
                    expression: E.Equal(lhs: Self.key(person, \.company), rhs: E.NilLiteral<TypedCompany>()),
                    format: "company == nil", arguments: [])
            }
            return Part(
                expression: E.NotEqual(lhs: Self.key(person, \.manager), rhs: E.NilLiteral<TypedPerson>()),
                format: "manager != nil", arguments: [])
        case 11:
            let (operation, symbol) = randomOperator()
            let value = random.pick(Self.doubles)
            let fallbackHolds = Self.holds(0.0, operation, value)
            let expression = E.Comparison(
                lhs: E.NilCoalesce(
                    lhs: E.OptionalFlatMap(Self.key(person, \.company)) { company in
                        E.KeyPath(root: company, keyPath: \TypedCompany.rating)
                    },
                    rhs: E.Value(0.0)),
                rhs: E.Value(value), op: operation)
            return Part(
                expression: expression,
                format: "(company.rating != nil AND company.rating \(symbol) %@)"
                    + (fallbackHolds ? " OR company.rating == nil" : ""),
                arguments: [value])
        case 12:
            let (operation, symbol) = randomOperator()
            let count = Int.random(in: 0...3, using: &random)
            let expression = E.Comparison(
                lhs: E.KeyPath(root: Self.key(person, \.tags), keyPath: \Set<TypedTag>.count), rhs: E.Value(count),
                op: operation)
            return Part(expression: expression, format: "tags.@count \(symbol) %@", arguments: [count])
        case 13:
            let expression = E.KeyPath(root: Self.key(person, \.friends), keyPath: \Set<TypedPerson>.isEmpty)
            return Part(expression: expression, format: "friends.@count == 0", arguments: [])
        case 14:
            let name = random.pick(Self.tagNames)
            let expression = E.SequenceContainsWhere(Self.key(person, \.tags)) { tag in
                E.Equal(lhs: E.KeyPath(root: tag, keyPath: \TypedTag.name), rhs: E.Value(name))
            }
            return Part(expression: expression, format: "ANY tags.name == %@", arguments: [name])
        case 15:
            let weight = random.pick([Int64(0), 1, 2, 3])
            let expression = E.SequenceAllSatisfy(Self.key(person, \.tags)) { tag in
                E.Comparison(lhs: E.ForcedUnwrap(E.KeyPath(root: tag, keyPath: \TypedTag.weight)), rhs: E.Value(weight),
                    op: .greaterThan)
            }
            return Part(expression: expression, format: "ALL tags.weight > %@", arguments: [weight])
        case 16:
            let weight = random.pick([Int64(0), 1, 2, 3])
            let (operation, symbol) = randomOperator()
            let count = Int.random(in: 0...2, using: &random)
            let filtered = E.Filter(Self.key(person, \.tags)) { tag in
                E.Comparison(lhs: E.ForcedUnwrap(E.KeyPath(root: tag, keyPath: \TypedTag.weight)), rhs: E.Value(weight),
                    op: .greaterThanOrEqual)
            }
            let expression = E.Comparison(
                lhs: E.KeyPath(root: filtered, keyPath: \[TypedTag].count), rhs: E.Value(count), op: operation)
            return Part(
                expression: expression, format: "SUBQUERY(tags, $t, $t.weight >= %@).@count \(symbol) %@",
                arguments: [weight, count])
        case 17:
            let age = random.pick(Self.integers)
            let expression = E.SequenceContainsWhere(Self.key(person, \.friends)) { friend in
                E.Comparison(lhs: E.ForcedUnwrap(E.KeyPath(root: friend, keyPath: \TypedPerson.age)), rhs: E.Value(age),
                    op: .greaterThan)
            }
            return Part(expression: expression, format: "ANY friends.age > %@", arguments: [age])
        case 18:
            let text = random.pick(Self.strings)
            let expression = E.Equal(
                lhs: E.OptionalFlatMap(Self.key(person, \.manager)) { manager in
                    E.OptionalFlatMap(E.KeyPath(root: manager, keyPath: \TypedPerson.company)) { company in
                        E.KeyPath(root: company, keyPath: \TypedCompany.name)
                    }
                },
                rhs: E.Value(text))
            return Part(expression: expression, format: "manager.company.name == %@", arguments: [text])
        case 19:
            let ages = Array(Set((0..<Int.random(in: 0...4, using: &random)).map { _ in random.pick(Self.integers) }))
            let expression = E.SequenceContains(sequence: E.Value(ages), element: E.ForcedUnwrap(Self.key(person, \.age)))
            return Part(expression: expression, format: "age IN %@", arguments: [ages])
        case 20:
            let bounds = [random.pick(Self.integers), random.pick(Self.integers)].sorted()
            let expression = E.RangeExpressionContains(
                range: E.ClosedRange(lower: E.Value(bounds[0]), upper: E.Value(bounds[1])),
                element: E.ForcedUnwrap(Self.key(person, \.age)))
            return Part(expression: expression, format: "age BETWEEN %@", arguments: [bounds])
        case 21:
            let part = random.pick(Self.prefixes + ["zoe", "ZOE", "aero", "SS", "emile"])
            let expression = E.build_localizedStandardContains(E.ForcedUnwrap(Self.key(person, \.name)), E.Value(part))
            return Part(expression: expression, format: "name CONTAINS[cd] %@", arguments: [part])
        case 22:
            let name = random.pick(Self.tagNames.compactMap { $0 } + ["e", "Ae"])
            let expression = E.SequenceContainsWhere(Self.key(person, \.tags)) { tag in
                E.NilCoalesce(
                    lhs: E.OptionalFlatMap(E.KeyPath(root: tag, keyPath: \TypedTag.name)) { tagName in
                        E.build_localizedStandardContains(tagName, E.Value(name))
                    },
                    rhs: E.Value(false))
            }
            return Part(expression: expression, format: "ANY tags.name CONTAINS[cd] %@", arguments: [name])
        case 23:
            // Arithmetic on stored values: `age! + c op v`.
            let (operation, symbol) = randomOperator()
            let addend = random.pick(Self.integers)
            let value = random.pick(Self.integers)
            let expression = E.Comparison(
                lhs: E.Arithmetic(lhs: E.ForcedUnwrap(Self.key(person, \.age)), rhs: E.Value(addend), op: .add),
                rhs: E.Value(value), op: operation)
            return Part(expression: expression, format: "age + %@ \(symbol) %@", arguments: [addend, value])
        case 24:
            // `(company?.rating ?? 1) * score! op v`, with the fallback's branch kept.
            let (operation, symbol) = randomOperator()
            let value = random.pick(Self.doubles)
            let rating = E.NilCoalesce(
                lhs: E.OptionalFlatMap(Self.key(person, \.company)) { company in
                    E.KeyPath(root: company, keyPath: \TypedCompany.rating)
                },
                rhs: E.Value(1.0))
            let expression = E.Comparison(
                lhs: E.Arithmetic(lhs: rating, rhs: E.ForcedUnwrap(Self.key(person, \.score)), op: .multiply),
                rhs: E.Value(value), op: operation)
            return Part(
                expression: expression,
                format: "(company.rating != nil AND company.rating * score \(symbol) %@) "
                    + "OR (company.rating == nil AND 1.0 * score \(symbol) %@)",
                arguments: [value, value])
        case 25:
            // A closure inside a closure: friends with a tag of that name.
            let name = random.pick(Self.tagNames)
            let expression = E.SequenceContainsWhere(Self.key(person, \.friends)) { friend in
                E.SequenceContainsWhere(E.KeyPath(root: friend, keyPath: \TypedPerson.tags)) { tag in
                    E.Equal(lhs: E.KeyPath(root: tag, keyPath: \TypedTag.name), rhs: E.Value(name))
                }
            }
            return Part(
                expression: expression, format: "SUBQUERY(friends, $f, ANY $f.tags.name == %@).@count > 0",
                arguments: [name])
        case 26:
            // Search terms: every captured term in the name (no terms: everyone).
            let terms = (0..<Int.random(in: 0...2, using: &random)).map { _ in random.pick(["zo", "e", "Ø", "ss", "a", "東"]) }
            let expression = E.SequenceAllSatisfy(E.Value(terms)) { term in
                E.build_localizedStandardContains(E.ForcedUnwrap(Self.key(person, \.name)), term)
            }
            let format = terms.isEmpty ? "TRUEPREDICATE" : terms.map { _ in "name CONTAINS[cd] %@" }.joined(separator: " AND ")
            return Part(expression: expression, format: format, arguments: terms)
        default:
            let text = random.pick(Self.strings.compactMap { $0 })
            let expression = E.Equal(lhs: E.NilCoalesce(lhs: Self.key(person, \.name), rhs: E.Value("")), rhs: E.Value(text))
            return Part(
                expression: expression,
                format: "(name != nil AND name == %@)" + (text.isEmpty ? " OR name == nil" : ""), arguments: [text])
        }
    }

    mutating func randomOperator() -> (PredicateExpressions.ComparisonOperator, String) {
        random.pick([(.lessThan, "<"), (.lessThanOrEqual, "<="), (.greaterThan, ">"), (.greaterThanOrEqual, ">=")])
    }

    static func holds<T: Comparable>(_ left: T, _ operation: PredicateExpressions.ComparisonOperator, _ right: T) -> Bool {
        switch operation {
        case .lessThan: left < right
        case .lessThanOrEqual: left <= right
        case .greaterThan: left > right
        default: left >= right
        }
    }

    static func key<Value>(
        _ person: Person, _ keyPath: KeyPath<TypedPerson, Value> & Sendable
    ) -> PredicateExpressions.KeyPath<Person, Value> {
        PredicateExpressions.KeyPath(root: person, keyPath: keyPath)
    }

    static func and(_ left: Expression, _ right: Expression) -> Expression {
        func open<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> Expression {
            PredicateExpressions.Conjunction(lhs: l, rhs: r)
        }
        return open(left, right)
    }

    static func or(_ left: Expression, _ right: Expression) -> Expression {
        func open<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> Expression {
            PredicateExpressions.Disjunction(lhs: l, rhs: r)
        }
        return open(left, right)
    }

    static func not(_ operand: Expression) -> Expression {
        func open<O: StandardPredicateExpression<Bool>>(_ o: O) -> Expression { PredicateExpressions.Negation(o) }
        return open(operand)
    }

    static func conditional<T: StandardPredicateExpression<Bool>>(
        _ test: T, _ then: Expression, _ otherwise: Expression
    ) -> Expression {
        func open<A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ a: A, _ b: B) -> Expression {
            PredicateExpressions.Conditional(test: test, trueBranch: a, falseBranch: b)
        }
        return open(then, otherwise)
    }
}

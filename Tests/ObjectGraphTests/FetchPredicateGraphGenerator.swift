import Foundation
import TestSupport

@testable import ObjectGraph

/// Builds random predicates over ``PredicateGraph``'s model: attributes through to-one chains, to-many key
/// paths with and without `ANY`/`ALL`/`NONE`, membership, collection operators, subqueries, `SELF` and
/// relationships compared with objects (`$P12` stands for the Person with serial 12, `$C3` a Company, `$T5`
/// a Tag), and literal collections with qualifiers, combined with `NOT`, `AND` and `OR`.
struct PredicateGraphGenerator {
    typealias Node = FetchPredicate.Node
    typealias Operand = FetchPredicate.Operand

    var random: SeededRandom
    let counts: (people: Int, companies: Int, tags: Int)

    static let attributes: [String: [(key: String, type: AttributeType)]] = [
        "Person": [("name", .string), ("nickname", .string), ("age", .integer64), ("score", .double),
            ("born", .date), ("active", .boolean), ("serial", .integer64)],
        "Contractor": [("name", .string), ("age", .integer64), ("rate", .double), ("score", .double)],
        "Company": [("name", .string), ("rating", .double), ("founded", .integer64), ("serial", .integer64)],
        "Tag": [("name", .string), ("weight", .integer64), ("serial", .integer64)],
    ]
    static let toOne: [String: [(key: String, destination: String)]] = [
        "Person": [("company", "Company"), ("manager", "Person")],
        "Contractor": [("company", "Company"), ("manager", "Person")],
        "Company": [("parent", "Company")], "Tag": [],
    ]
    static let toMany: [String: [(key: String, destination: String)]] = [
        "Person": [("tags", "Tag"), ("friends", "Person")], "Contractor": [("tags", "Tag"), ("friends", "Person")],
        "Company": [("employees", "Person")], "Tag": [("people", "Person")],
    ]
    static let numericTypes: Set<AttributeType> = [.integer64, .double, .boolean]

    /// An entity to fetch and a predicate for it.
    mutating func next() -> (entity: String, predicate: FetchPredicate) {
        let entity = random.pick(["Person", "Person", "Person", "Person", "Company", "Company", "Tag", "Contractor"])
        return (entity, FetchPredicate(node(on: entity, depth: 0)))
    }

    mutating func node(on entity: String, depth: Int) -> Node {
        let roll = Double.random(in: 0..<1, using: &random)
        if depth >= 2 || roll < 0.55 { return comparison(on: entity, depth: depth) }
        if roll < 0.68 { return .not(node(on: entity, depth: depth + 1)) }
        let operands = (0..<Int.random(in: 2...3, using: &random)).map { _ in node(on: entity, depth: depth + 1) }
        return roll < 0.85 ? .and(operands) : .or(operands)
    }

    mutating func comparison(on entity: String, depth: Int) -> Node {
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.36 { return scalarComparison(on: entity) }
        if roll < 0.58 { return toManyComparison(on: entity) }
        if roll < 0.70 { return collectionComparison(on: entity) }
        if roll < 0.77, depth < 2 { return subqueryComparison(on: entity, depth: depth) }
        if roll < 0.92 { return identityComparison(on: entity) }
        return literalQualified(on: entity)
    }

    // MARK: Paths

    /// Up to `maximum` to-one hops from `entity`: the keys and the entity reached.
    mutating func toOneHops(from entity: String, maximum: Int) -> (keys: [String], entity: String) {
        var keys: [String] = []
        var current = entity
        let count = random.pick([0, 0, 0, 1, 1, 2].filter { $0 <= maximum })
        for _ in 0..<count {
            guard let hops = Self.toOne[current], !hops.isEmpty else { break }
            let hop = random.pick(hops)
            keys.append(hop.key)
            current = hop.destination
        }
        return (keys, current)
    }

    mutating func attribute(of entity: String, numeric: Bool = false) -> (key: String, type: AttributeType) {
        let all = Self.attributes[entity] ?? []
        let pool = numeric ? all.filter { Self.numericTypes.contains($0.type) } : all
        return random.pick(pool.isEmpty ? all : pool)
    }

    /// A to-many key path: to-one hops, one to-many hop; the keys and the element entity.
    mutating func toManyPath(from entity: String) -> (keys: [String], element: String)? {
        let prefix = toOneHops(from: entity, maximum: 1)
        guard let hops = Self.toMany[prefix.entity], !hops.isEmpty else {
            guard let own = Self.toMany[entity], !own.isEmpty else { return nil }
            let hop = random.pick(own)
            return ([hop.key], hop.destination)
        }
        let hop = random.pick(hops)
        return (prefix.keys + [hop.key], hop.destination)
    }

    // MARK: Comparisons

    mutating func options() -> FetchPredicate.ComparisonOptions {
        random.pick([[], [], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive],
            [.normalized]])
    }

    mutating func scalarComparison(on entity: String) -> Node {
        let hops = toOneHops(from: entity, maximum: 2)
        let attribute = attribute(of: hops.entity)
        let key = Operand.key((hops.keys + [attribute.key]).joined(separator: "."))
        if random.chance(0.1) {
            let other = toOneHops(from: entity, maximum: 1)
            let otherAttribute = self.attribute(of: other.entity)
            let otherKey = Operand.key((other.keys + [otherAttribute.key]).joined(separator: "."))
            return .comparison(.init(key, random.pick(FetchPredicate.Operator.allCases.filter { $0 != .between }),
                otherKey, options: options()))
        }
        return valueComparison(key, type: attribute.type, modifier: .direct)
    }

    /// `subject <op> value` (or flipped), with values suited to `type`.
    mutating func valueComparison(_ subject: Operand, type: AttributeType, modifier: FetchPredicate.Modifier) -> Node {
        let operation = random.pick(FetchPredicate.Operator.allCases)
        let options = options()
        switch operation {
        case .in:
            let elements = (0..<Int.random(in: 0...4, using: &random)).map { _ in Operand.value(value(for: type)) }
            if type == .string, random.chance(0.15) {
                return .comparison(.init(subject, .in, .value(fragment()), options: options, modifier: modifier))
            }
            return .comparison(.init(subject, .in, .aggregate(elements), options: options, modifier: modifier))
        case .between:
            var bounds = [value(for: type), value(for: type)]
            if random.chance(0.7) { bounds.sort { FetchPredicate.ValueComparison.order($0, $1).map { $0 < 0 } ?? false } }
            return .comparison(.init(subject, .between, .aggregate(bounds.map(Operand.value)), options: options,
                modifier: modifier))
        case .beginsWith, .endsWith, .contains:
            return .comparison(.init(subject, operation, .value(fragment()), options: options, modifier: modifier))
        case .like:
            return .comparison(.init(subject, .like, .value(.string(likePattern())), options: options, modifier: modifier))
        case .matches:
            let pattern = random.pick(PredicateTestGenerator.patterns)
            return .comparison(.init(subject, .matches, .value(.string(pattern)), options: options, modifier: modifier))
        default:
            let value = Operand.value(value(for: type))
            if modifier == .direct, random.chance(0.2) {
                return .comparison(.init(value, operation, subject, options: options))
            }
            return .comparison(.init(subject, operation, value, options: options, modifier: modifier))
        }
    }

    mutating func toManyComparison(on entity: String) -> Node {
        guard let path = toManyPath(from: entity) else { return scalarComparison(on: entity) }
        let suffix = toOneHops(from: path.element, maximum: 1)
        let attribute = attribute(of: suffix.entity)
        let keyPath = (path.keys + suffix.keys + [attribute.key]).joined(separator: ".")
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.12 {
            return .comparison(.init(.value(value(for: attribute.type)), .in, .key(keyPath), options: options()))
        }
        if roll < 0.22 {
            return .comparison(.init(.key(keyPath), .contains, .value(value(for: attribute.type)), options: options()))
        }
        let modifier = random.pick(FetchPredicate.Modifier.allCases)
        return valueComparison(.key(keyPath), type: attribute.type, modifier: modifier)
    }

    mutating func collectionComparison(on entity: String) -> Node {
        guard let path = toManyPath(from: entity) else { return scalarComparison(on: entity) }
        let function = random.pick(FetchPredicate.CollectionOperation.Function.allCases)
        var property: String?
        var type = AttributeType.integer64
        if function != .count {
            let suffix = toOneHops(from: path.element, maximum: 1)
            let numeric = function == .sum || function == .average
            let attribute = attribute(of: suffix.entity, numeric: numeric)
            property = (suffix.keys + [attribute.key]).joined(separator: ".")
            type = numeric ? .double : attribute.type
        }
        let operation = FetchPredicate.CollectionOperation(
            function, of: .keyPath(path.keys.joined(separator: ".")), property: property)
        if function == .count {
            let count = Operand.value(.integer(Int64(Int.random(in: 0...4, using: &random))))
            let symbol = random.pick([FetchPredicate.Operator.equalTo, .notEqualTo, .lessThan, .greaterThan,
                .greaterThanOrEqualTo, .lessThanOrEqualTo])
            return .comparison(.init(.collectionOperation(operation), symbol, count))
        }
        return valueComparison(.collectionOperation(operation), type: type, modifier: .direct)
    }

    mutating func subqueryComparison(on entity: String, depth: Int) -> Node {
        guard let own = Self.toMany[entity], !own.isEmpty else { return scalarComparison(on: entity) }
        let hop = random.pick(own)
        let inner = node(on: hop.destination, depth: 2)
        let subquery = FetchPredicate.Subquery(collection: hop.key, variable: random.pick(["x", "e", "t"]), predicate: inner)
        let function: FetchPredicate.CollectionOperation.Function = random.chance(0.8) ? .count : .maximum
        let property = function == .count ? nil : attribute(of: hop.destination).key
        let operation = FetchPredicate.CollectionOperation(function, of: .subquery(subquery), property: property)
        let symbol = random.pick([FetchPredicate.Operator.equalTo, .greaterThan, .lessThan, .greaterThanOrEqualTo])
        let bound: AttributeValue = function == .count ? .integer(Int64(Int.random(in: 0...3, using: &random))) : value(for: .integer64)
        return .comparison(.init(.collectionOperation(operation), symbol, .value(bound)))
    }

    /// An object of `entity`'s family as a variable (`$P12`), or a list of them.
    mutating func objectVariable(_ entity: String) -> Operand {
        let (prefix, count) =
            switch entity {
            case "Company": ("C", counts.companies)
            case "Tag": ("T", counts.tags)
            default: ("P", counts.people)
            }
        return .variable("\(prefix)\(Int.random(in: 0..<count, using: &random))")
    }

    mutating func identityComparison(on entity: String) -> Node {
        let roll = Double.random(in: 0..<1, using: &random)
        let equality = random.pick([FetchPredicate.Operator.equalTo, .notEqualTo])
        if roll < 0.25 {
            if random.chance(0.5) {
                let list = (0..<Int.random(in: 0...5, using: &random)).map { _ in objectVariable(entity) }
                return .comparison(.init(.evaluatedObject, .in, .aggregate(list)))
            }
            return .comparison(.init(.evaluatedObject, equality, random.chance(0.1) ? .value(.null) : objectVariable(entity)))
        }
        if roll < 0.6, let hops = Self.toOne[entity], !hops.isEmpty {
            let hop = random.pick(hops)
            var keys = [hop.key]
            var destination = hop.destination
            if random.chance(0.25), let next = Self.toOne[destination]?.first {
                keys.append(next.key)
                destination = next.destination
            }
            let key = Operand.key(keys.joined(separator: "."))
            if random.chance(0.25) {
                let list = (0..<Int.random(in: 0...4, using: &random)).map { _ in objectVariable(destination) }
                return .comparison(.init(key, .in, .aggregate(list + (random.chance(0.2) ? [.value(.null)] : []))))
            }
            return .comparison(.init(key, equality, random.chance(0.3) ? .value(.null) : objectVariable(destination)))
        }
        guard let hops = Self.toMany[entity], !hops.isEmpty else { return scalarComparison(on: entity) }
        let hop = random.pick(hops)
        let object = objectVariable(hop.destination)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return .comparison(.init(object, .in, .key(hop.key)))
        case 1: return .comparison(.init(.key(hop.key), .contains, object))
        default:
            return .comparison(.init(.key(hop.key), equality, object, modifier: random.pick(FetchPredicate.Modifier.allCases)))
        }
    }

    mutating func literalQualified(on entity: String) -> Node {
        let attribute = attribute(of: entity)
        let elements = (0..<Int.random(in: 0...3, using: &random)).map { _ in Operand.value(value(for: attribute.type)) }
        let operation = random.pick([FetchPredicate.Operator.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo,
            .beginsWith])
        let modifier = random.pick([FetchPredicate.Modifier.any, .all, .none])
        return .comparison(.init(.aggregate(elements), operation, .key(attribute.key), options: options(), modifier: modifier))
    }

    // MARK: Values

    mutating func value(for type: AttributeType) -> AttributeValue {
        if random.chance(0.08) { return .null }
        if random.chance(0.05) { return random.pick(PredicateTestValues.everything) }
        switch type {
        case .string: return random.chance(0.7) ? random.pick(PredicateTestValues.textValues) : fragment()
        case .integer64: return .integer(random.pick([-5, 0, 1, 2, 3, 7, 10, 42, 100, 1990, 2001]))
        case .double: return .double(random.pick([-2.5, 0, 0.1, 0.2, 0.3, 0.5, 0.6, 1, 1.5, 3.5, 7.25, 10.5]))
        case .date: return .date(random.pick(PredicateTestValues.dates))
        case .boolean: return .boolean(random.chance(0.5))
        default: return random.pick(PredicateTestValues.everything)
        }
    }

    mutating func fragment() -> AttributeValue {
        var generator = PredicateTestGenerator(random: random)
        defer { random = generator.random }
        return generator.fragment()
    }

    mutating func likePattern() -> String {
        var generator = PredicateTestGenerator(random: random)
        defer { random = generator.random }
        return generator.likePattern().stringValue ?? "*"
    }
}

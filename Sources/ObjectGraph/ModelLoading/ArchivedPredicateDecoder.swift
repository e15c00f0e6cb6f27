import Foundation

/// Turns an archived `NSPredicate` (inside a compiled model's fetch request templates) into a ``FetchPredicate``
/// tree directly, without going through format text.
///
/// The archive classes and keys are Foundation's: `NSCompoundPredicate` (`NSCompoundPredicateType` 0 not, 1 and,
/// 2 or; `NSSubpredicates`), `NSComparisonPredicate` (`NSLeftExpression`, `NSRightExpression`, and an operator
/// object under `NSPredicateOperator` with `NSOperatorType`, `NSModifier` — 0 direct, 1 `ALL`, 2 `ANY` — and the
/// `[c]`/`[d]`/`[n]` bits under `NSOptions` or `NSFlags`), `NSTruePredicate`, `NSFalsePredicate`. Expressions:
/// `NSKeyPathExpression` (a function expression whose argument is an `NSKeyPathSpecifierExpression` with
/// `NSKeyPath`, or a key path under `NSKeyPath` itself), `NSConstantValueExpression` (`NSConstantValue`: strings,
/// numbers, Booleans, dates, data, URLs, UUIDs, `NSNull`, decimals, and arrays or sets of them), `NSVariableExpression`
/// (`NSVariable`), `NSAggregateExpression` (`NSCollection`) and `NSSelfExpression`. `NOT (ANY …)` reads as `NONE …`,
/// which is how Foundation archives `NONE`.
///
/// Anything else — custom selectors, subqueries, functions, arithmetic, a key path the format parser does not read —
/// is an ``Unsupported`` error saying what it is; nothing traps, and nesting is bounded.
struct ArchivedPredicateDecoder {
    let archive: KeyedArchive

    /// Why an archived predicate has no ``FetchPredicate`` counterpart here.
    struct Unsupported: Error, Sendable, CustomStringConvertible {
        /// What was found, in words.
        let reason: String
        var description: String { reason }
    }

    /// The deepest nesting of predicates and expressions read (a format string may nest no deeper).
    static let maximumDepth = 64

    /// The predicate archived at `value`: only one that a format string could also say (its text parses back to
    /// it), so that a template's tree and its ``FetchRequestTemplate/predicateFormat`` never disagree — `BETWEEN`
    /// with other than two bounds, say, is refused here as the parser refuses it.
    func predicate(_ value: KeyedArchive.Value?) throws(Unsupported) -> FetchPredicate {
        let predicate = FetchPredicate(try node(value, depth: 0))
        let format = predicate.predicateFormat
        guard let reparsed = try? FetchPredicate(format: format), reparsed == predicate else {
            throw Unsupported(reason: "a predicate no format string can say (\(format.prefix(120)))")
        }
        return predicate
    }

    /// A derived attribute's archived `NSDerivationExpression` as the text a source model writes in
    /// `derivationExpression`: a key path (`name`, `author.name`, or one with a collection operator as written);
    /// `lowercase:(name)`, `uppercase:(…)`, `canonical:(…)` of one; `now()`; and `count:(pages)` / `sum:(items.price)`
    /// — the function expressions Core Data's `setDerivationExpression:` makes of key paths ending in `.@count` and
    /// `.@sum` (`pages.@count`, `items.price.@sum`) — back as those key paths.
    func derivation(_ value: KeyedArchive.Value?) throws(Unsupported) -> String {
        guard let object = archive.object(value) else { throw Unsupported(reason: "the derivation is not an archived expression") }
        let classes = Set(object.classes + [object.className])
        if classes.contains("NSKeyPathSpecifierExpression") || classes.contains("NSKeyPathExpression") {
            return try keyPathText(object)
        }
        guard classes.contains("NSFunctionExpression"), let selector = archive.string(object["NSSelectorName"]) else {
            throw Unsupported(reason: "a derivation of class \(object.className)")
        }
        let arguments = (archive.array(object["NSArguments"]) ?? []).compactMap { archive.object($0) }
        func onlyKeyPath() throws(Unsupported) -> String {
            guard arguments.count == 1, let argument = arguments.first else {
                throw Unsupported(reason: "\(selector) with \(arguments.count) arguments")
            }
            return try keyPathText(argument)
        }
        switch selector {
        case "now", "now()": return "now()"
        case "lowercase:", "uppercase:", "canonical:": return selector + "(" + (try onlyKeyPath()) + ")"
        case "count:": return try onlyKeyPath() + ".@count"
        case "sum:": return try onlyKeyPath() + ".@sum"
        default: throw Unsupported(reason: "the function \(selector)")
        }
    }

    /// The text of a key path expression, as written (collection operators and indexes included): `NSKeyPath` on
    /// the object, or the key path specifier among its `NSArguments` (applied to `SELF`).
    private func keyPathText(_ object: KeyedArchive.Object) throws(Unsupported) -> String {
        if let path = archive.string(object["NSKeyPath"]), !path.isEmpty { return path }
        if let operand = archive.object(object["NSOperand"]),
            !Set(operand.classes + [operand.className]).contains("NSSelfExpression")
        {
            throw Unsupported(reason: "a key path applied to something other than SELF")
        }
        for argument in archive.array(object["NSArguments"]) ?? [] {
            if let specifier = archive.object(argument), let path = archive.string(specifier["NSKeyPath"]), !path.isEmpty {
                return path
            }
        }
        throw Unsupported(reason: "a key path expression has no NSKeyPath")
    }

    private func node(_ value: KeyedArchive.Value?, depth: Int) throws(Unsupported) -> FetchPredicate.Node {
        guard depth < Self.maximumDepth else { throw Unsupported(reason: "it nests deeper than \(Self.maximumDepth)") }
        guard let object = archive.object(value) else { throw Unsupported(reason: "a predicate is not an archived object") }
        let classes = Set(object.classes + [object.className])
        if classes.contains("NSTruePredicate") { return .truePredicate }
        if classes.contains("NSFalsePredicate") { return .falsePredicate }
        if classes.contains("NSCompoundPredicate") {
            let members = archive.array(object["NSSubpredicates"]) ?? []
            var nodes: [FetchPredicate.Node] = []
            for member in members { nodes.append(try node(member, depth: depth + 1)) }
            switch archive.integer(object["NSCompoundPredicateType"]) {
            case 0?:
                guard nodes.count == 1, let operand = nodes.first else {
                    throw Unsupported(reason: "a NOT predicate has \(nodes.count) subpredicates, not one")
                }
                // Foundation archives `NONE x` as `NOT (ANY x)`.
                if case .comparison(var comparison) = operand, comparison.modifier == .any {
                    comparison.modifier = .none
                    return .comparison(comparison)
                }
                return .not(operand)
            case 1?: return .and(nodes)
            case 2?: return .or(nodes)
            case let other: throw Unsupported(reason: "compound predicate type \(other.map(String.init) ?? "missing")")
            }
        }
        if classes.contains("NSComparisonPredicate") { return .comparison(try comparison(object, depth: depth)) }
        throw Unsupported(reason: "a predicate of class \(object.className)")
    }

    private func comparison(_ object: KeyedArchive.Object, depth: Int) throws(Unsupported) -> FetchPredicate.Comparison {
        guard let operatorObject = archive.object(object["NSPredicateOperator"]) else {
            throw Unsupported(reason: "a comparison has no NSPredicateOperator")
        }
        if operatorObject.className == "NSCustomPredicateOperator" || operatorObject["NSSelector"] != nil {
            throw Unsupported(reason: "a comparison with a custom selector")
        }
        let code = archive.integer(operatorObject["NSOperatorType"])
        let operation: FetchPredicate.Operator
        switch code {
        case 0?: operation = .lessThan
        case 1?: operation = .lessThanOrEqualTo
        case 2?: operation = .greaterThan
        case 3?: operation = .greaterThanOrEqualTo
        case 4?: operation = archive.boolean(operatorObject["NSNegate"]) == true ? .notEqualTo : .equalTo
        case 5?: operation = .notEqualTo
        case 6?: operation = .matches
        case 7?: operation = .like
        case 8?: operation = .beginsWith
        case 9?: operation = .endsWith
        case 10?: operation = .in
        case 99?: operation = .contains
        case 100?: operation = .between
        case let other: throw Unsupported(reason: "operator type \(other.map(String.init) ?? "missing")")
        }
        let modifier: FetchPredicate.Modifier
        switch archive.integer(operatorObject["NSModifier"]) ?? 0 {
        case 0: modifier = .direct
        case 1: modifier = .all
        case 2: modifier = .any
        case let other: throw Unsupported(reason: "comparison modifier \(other)")
        }
        let bits = archive.integer(operatorObject["NSOptions"]) ?? archive.integer(operatorObject["NSFlags"]) ?? 0
        let options = FetchPredicate.ComparisonOptions(rawValue: Int(truncatingIfNeeded: bits) & 0x7)
        return FetchPredicate.Comparison(
            try operand(object["NSLeftExpression"], depth: depth + 1), operation,
            try operand(object["NSRightExpression"], depth: depth + 1), options: options, modifier: modifier)
    }

    private func operand(_ value: KeyedArchive.Value?, depth: Int) throws(Unsupported) -> FetchPredicate.Operand {
        guard depth < Self.maximumDepth else { throw Unsupported(reason: "it nests deeper than \(Self.maximumDepth)") }
        guard let object = archive.object(value) else { throw Unsupported(reason: "an expression is not an archived object") }
        let classes = Set(object.classes + [object.className])
        if classes.contains("NSSelfExpression") { return .evaluatedObject }
        if classes.contains("NSVariableExpression") {
            guard let name = archive.string(object["NSVariable"]), !name.isEmpty else {
                throw Unsupported(reason: "a variable expression has no NSVariable")
            }
            return .variable(name)
        }
        if classes.contains("NSKeyPathSpecifierExpression") || classes.contains("NSKeyPathExpression") {
            return try keyPath(object)
        }
        if classes.contains("NSConstantValueExpression") { return try constant(object["NSConstantValue"], depth: depth) }
        if classes.contains("NSAggregateExpression") {
            var members: [FetchPredicate.Operand] = []
            for member in archive.array(object["NSCollection"]) ?? [] {
                members.append(try operand(member, depth: depth + 1))
            }
            return .aggregate(members)
        }
        let selector = archive.string(object["NSSelectorName"]).map { " (\($0))" } ?? ""
        throw Unsupported(reason: "an expression of class \(object.className)\(selector)")
    }

    /// A key path expression: `NSKeyPath` on the object, or the key path specifier among its `NSArguments` (applied
    /// to `SELF`, with `valueForKey:`/`valueForKeyPath:`). Paths with collection operators (`@count`) or indexes are
    /// read by the format parser, as they would be written.
    private func keyPath(_ object: KeyedArchive.Object) throws(Unsupported) -> FetchPredicate.Operand {
        let path = try keyPathText(object)
        let isPlain = path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { component in
            guard let first = component.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else {
                return false
            }
            return component.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
        }
        if isPlain { return .key(path) }
        // `employees.@count`, `tags[FIRST].name`: the parser knows these shapes.
        guard let parsed = try? FetchPredicate(format: path + " == nil"),
            case .comparison(let comparison) = parsed.node
        else { throw Unsupported(reason: "the key path '\(path)'") }
        return comparison.left
    }

    private func constant(_ value: KeyedArchive.Value?, depth: Int) throws(Unsupported) -> FetchPredicate.Operand {
        guard let value else { return .value(.null) }
        if let object = archive.object(value), object.classes.contains("NSDecimalNumber") || object.className == "NSDecimalNumber" {
            guard let number = ArchivedDecimal.decimal(object, in: archive) else {
                throw Unsupported(reason: "an NSDecimalNumber constant that cannot be read")
            }
            return .value(.decimal(number))
        }
        let archived: ArchivedValue
        do {
            archived = try ArchivedValue.decode(archive, value, depth: depth)
        } catch {
            throw Unsupported(reason: "a constant: \(error.reason)")
        }
        return try operand(of: archived)
    }

    private func operand(of value: ArchivedValue) throws(Unsupported) -> FetchPredicate.Operand {
        switch value {
        case .null: return .value(.null)
        case .string(let text): return .value(.string(text))
        case .integer(let number): return .value(.integer(number))
        case .double(let number): return .value(.double(number))
        case .boolean(let flag): return .value(.boolean(flag))
        case .date(let date): return .value(.date(date))
        case .data(let bytes): return .value(.binary(bytes))
        case .url(let url): return .value(.uri(url))
        case .uuid(let uuid): return .value(.uuid(uuid))
        case .array(let members):
            var operands: [FetchPredicate.Operand] = []
            for member in members { operands.append(try operand(of: member)) }
            return .aggregate(operands)
        case .set(let members):
            var operands: [FetchPredicate.Operand] = []
            for member in members { operands.append(try operand(of: member)) }
            return .aggregate(operands)
        case .dictionary: throw Unsupported(reason: "a dictionary constant")
        }
    }
}

import Foundation
@testable import ObjectGraph

/// Writes predicates as Foundation archives them (`NSComparisonPredicate` with an operator object,
/// `NSCompoundPredicate`, `NSKeyPathExpression` …, keys as in ``ArchivedPredicateDecoder``'s documentation), for the
/// fetch request templates of the compiled models the tests write. Fixtures made by our own code.
enum ArchivedPredicateFixtures {
    /// The archived `NSPredicate` of `predicate`, added to `archive`.
    static func predicate(_ predicate: FetchPredicate, _ archive: KeyedArchiveBuilder) -> PropertyListValue {
        node(predicate.node, archive)
    }

    static func node(_ node: FetchPredicate.Node, _ archive: KeyedArchiveBuilder) -> PropertyListValue {
        switch node {
        case .truePredicate: return archive.object("NSTruePredicate", chain: ["NSPredicate"], fields: [])
        case .falsePredicate: return archive.object("NSFalsePredicate", chain: ["NSPredicate"], fields: [])
        case .not(let operand): return compound(0, [operand], archive)
        case .and(let operands): return compound(1, operands, archive)
        case .or(let operands): return compound(2, operands, archive)
        case .comparison(var comparison):
            if comparison.modifier == .none {
                // Foundation writes `NONE x` as `NOT (ANY x)`.
                comparison.modifier = .any
                return compound(0, [.comparison(comparison)], archive)
            }
            return self.comparison(comparison, archive)
        }
    }

    private static func compound(_ type: Int64, _ operands: [FetchPredicate.Node], _ archive: KeyedArchiveBuilder)
        -> PropertyListValue
    {
        archive.object("NSCompoundPredicate", chain: ["NSPredicate"], fields: [
            ("NSCompoundPredicateType", .integer(type)),
            ("NSSubpredicates", archive.array(operands.map { node($0, archive) })),
        ])
    }

    private static func comparison(_ comparison: FetchPredicate.Comparison, _ archive: KeyedArchiveBuilder)
        -> PropertyListValue
    {
        let modifier: Int64 = switch comparison.modifier {
        case .direct, .none: 0
        case .all: 1
        case .any: 2
        }
        let options = PropertyListValue.integer(Int64(comparison.options.rawValue))
        var fields: [(String, PropertyListValue)] = [("NSModifier", .integer(modifier))]
        let className: String
        switch comparison.operation {
        case .equalTo, .notEqualTo:
            className = "NSEqualityPredicateOperator"
            let negated = comparison.operation == .notEqualTo
            fields += [("NSOperatorType", .integer(negated ? 5 : 4)), ("NSNegate", .boolean(negated)),
                ("NSOptions", options)]
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            className = "NSComparisonPredicateOperator"
            let code: Int64 = switch comparison.operation {
            case .lessThan: 0
            case .lessThanOrEqualTo: 1
            case .greaterThan: 2
            default: 3
            }
            fields += [("NSOperatorType", .integer(code)), ("NSOptions", options)]
        case .matches:
            className = "NSMatchingPredicateOperator"
            fields += [("NSOperatorType", .integer(6)), ("NSFlags", options)]
        case .like:
            className = "NSLikePredicateOperator"
            fields += [("NSOperatorType", .integer(7)), ("NSFlags", options)]
        case .beginsWith, .endsWith, .contains:
            className = "NSSubstringPredicateOperator"
            let (code, position): (Int64, Int64) = switch comparison.operation {
            case .beginsWith: (8, 0)
            case .endsWith: (9, 1)
            default: (99, 2)
            }
            fields += [("NSOperatorType", .integer(code)), ("NSFlags", options), ("NSPosition", .integer(position))]
        case .in:
            className = "NSInPredicateOperator"
            fields += [("NSOperatorType", .integer(10)), ("NSFlags", options)]
        case .between:
            className = "NSBetweenPredicateOperator"
            fields += [("NSOperatorType", .integer(100))]
        }
        let operatorObject = archive.object(className, chain: ["NSPredicateOperator"], fields: fields)
        return archive.object("NSComparisonPredicate", chain: ["NSPredicate"], fields: [
            ("NSLeftExpression", expression(comparison.left, archive)),
            ("NSRightExpression", expression(comparison.right, archive)),
            ("NSPredicateOperator", operatorObject),
        ])
    }

    static func expression(_ operand: FetchPredicate.Operand, _ archive: KeyedArchiveBuilder) -> PropertyListValue {
        switch operand {
        case .key(let path, _): return keyPath(path, archive)
        case .evaluatedObject: return selfExpression(archive)
        case .variable(let name, _):
            return archive.object("NSVariableExpression", chain: ["NSExpression"], fields: [
                ("NSExpressionType", .integer(2)), ("NSVariable", archive.add(.string(name))),
            ])
        case .aggregate(let members):
            return archive.object("NSAggregateExpression", chain: ["NSExpression"], fields: [
                ("NSExpressionType", .integer(14)),
                ("NSCollection", archive.array(members.map { expression($0, archive) })),
            ])
        case .value(let value):
            var fields: [(String, PropertyListValue)] = [("NSExpressionType", .integer(0))]
            if let archived = archivedValue(value) { fields.append(("NSConstantValue", archived.archived(into: archive))) }
            return archive.object("NSConstantValueExpression", chain: ["NSExpression"], fields: fields)
        case .collectionOperation:
            // `employees.@count` is a key path to Foundation.
            let text = FetchPredicate(.comparison(.init(operand, .equalTo, .value(.null)))).predicateFormat
            return keyPath(String(text.dropLast(" == nil".count)), archive)
        default:
            // Functions, arithmetic, indexes: a function expression the decoder does not read.
            return archive.object("NSFunctionExpression", chain: ["NSExpression"], fields: [
                ("NSExpressionType", .integer(4)), ("NSSelectorName", archive.add(.string("unsupported:"))),
                ("NSOperand", selfExpression(archive)), ("NSArguments", archive.array([])),
            ])
        }
    }

    static func selfExpression(_ archive: KeyedArchiveBuilder) -> PropertyListValue {
        archive.object("NSSelfExpression", chain: ["NSExpression"], fields: [("NSExpressionType", .integer(1))])
    }

    static func keyPath(_ path: String, _ archive: KeyedArchiveBuilder) -> PropertyListValue {
        let specifier = archive.object("NSKeyPathSpecifierExpression", chain: ["NSExpression"], fields: [
            ("NSExpressionType", .integer(10)), ("NSKeyPath", archive.add(.string(path))),
        ])
        return archive.object("NSKeyPathExpression", chain: ["NSFunctionExpression", "NSExpression"], fields: [
            ("NSExpressionType", .integer(3)), ("NSOperand", selfExpression(archive)),
            ("NSSelectorName", archive.add(.string("valueForKey:"))), ("NSArguments", archive.array([specifier])),
        ])
    }

    private static func archivedValue(_ value: AttributeValue) -> ArchivedValue? {
        switch value {
        case .null: nil
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .decimal(let number): .double(NSDecimalNumber(decimal: number).doubleValue)
        case .string(let text): .string(text)
        case .boolean(let flag): .boolean(flag)
        case .date(let date): .date(date)
        case .binary(let bytes): .data(bytes)
        case .uuid(let uuid): .uuid(uuid)
        case .uri(let url): .url(url)
        }
    }
}

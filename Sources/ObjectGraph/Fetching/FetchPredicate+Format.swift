import Foundation

extension FetchPredicate {
    /// Prints trees in canonical format syntax: every compound operand of `AND`/`OR` and every `NOT`
    /// operand in parentheses, `==`/`!=` spellings, double-quoted strings, `YES`/`NO`/`nil`, and
    /// `CAST(…)` for dates, UUIDs, URLs and data, so that the text parses back to an equal tree
    /// whichever precedence a reader assumes.
    enum Printer {
        /// `element`: inside a subquery, the variable that names the element, printed in front of its key
        /// paths (`$e.age`) and for the element itself (`$e`).
        static func format(_ node: Node, element: String? = nil) -> String {
            switch node {
            case .truePredicate:
                return "TRUEPREDICATE"
            case .falsePredicate:
                return "FALSEPREDICATE"
            case .comparison(let comparison):
                return format(comparison, element: element)
            case .not(let operand):
                return "NOT (\(format(operand, element: element)))"
            case .and(let operands):
                return operands.isEmpty
                    ? "TRUEPREDICATE"
                    : operands.map { compoundOperand($0, element: element) }.joined(separator: " AND ")
            case .or(let operands):
                return operands.isEmpty
                    ? "FALSEPREDICATE"
                    : operands.map { compoundOperand($0, element: element) }.joined(separator: " OR ")
            }
        }

        static func compoundOperand(_ node: Node, element: String?) -> String {
            switch node {
            case .and, .or: "(\(format(node, element: element)))"
            default: format(node, element: element)
            }
        }

        static func format(_ comparison: Comparison, element: String?) -> String {
            var options = ""
            if comparison.options.contains(.caseInsensitive) { options += "c" }
            if comparison.options.contains(.diacriticInsensitive) { options += "d" }
            if comparison.options.contains(.normalized) { options += "n" }
            let modifier = options.isEmpty ? "" : "[\(options)]"
            let qualifier = comparison.modifier == .direct ? "" : comparison.modifier.rawValue + " "
            return qualifier + "\(format(comparison.left, element: element)) \(comparison.operation.rawValue)\(modifier) "
                + format(comparison.right, element: element)
        }

        static func format(_ expression: Operand, element: String? = nil) -> String {
            switch expression {
            case .key(let path, _):
                return keyPath(path, element: element)
            case .value(let value):
                return literal(value)
            case .variable(let name, _):
                return "$" + name
            case .aggregate(let elements):
                return "{" + elements.map { format($0, element: element) }.joined(separator: ", ") + "}"
            case .evaluatedObject:
                return element.map { "$" + $0 } ?? "SELF"
            case .object(let id):
                return "CAST(\(quoted(id.uriRepresentation.absoluteString)), \"NSManagedObjectID\")"
            case .collectionOperation(let operation, _):
                return format(operation, element: element)
            case .arithmetic(let arithmetic):
                return "(" + format(arithmetic.left, element: element) + " " + arithmetic.operation.rawValue + " "
                    + format(arithmetic.right, element: element) + ")"
            case .function(let call):
                return format(call, element: element)
            case .element(let index, _):
                return keyPath(index.collection, element: element) + "[\(index.position.formatText)]"
                    + (index.property.map { "." + keyPath($0, element: nil) } ?? "")
            }
        }

        /// `now()`, or `FUNCTION(receiver, "name", arguments…)`.
        static func format(_ call: FunctionCall, element: String?) -> String {
            guard let receiver = call.arguments.first else { return call.function.callName + "()" }
            return "FUNCTION(" + ([format(receiver, element: element), quoted(call.function.rawValue)]
                + call.arguments.dropFirst().map { format($0, element: element) }).joined(separator: ", ") + ")"
        }

        static func format(_ operation: CollectionOperation, element: String?) -> String {
            var text: String
            switch operation.source {
            case .keyPath(let path):
                text = keyPath(path, element: element)
            case .subquery(let subquery):
                text = "SUBQUERY(\(keyPath(subquery.collection, element: element)), $\(subquery.variable), "
                    + format(subquery.predicate, element: subquery.variable) + ")"
            }
            text += "." + operation.function.rawValue
            if let property = operation.property { text += "." + keyPath(property, element: nil) }
            return text
        }

        /// A key path with each key `#`-escaped when it is a reserved word, after `$element.` in a subquery.
        static func keyPath(_ path: String, element: String?) -> String {
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map { key(String($0)) }
            return (element.map { ["$" + $0] } ?? []).joined() + (element == nil ? "" : ".")
                + keys.joined(separator: ".")
        }

        /// How deeply the parser nests when it reads the canonical form of `node` (each `NOT (`, parenthesised
        /// compound, `{…}`, `CAST(…)` and `SUBQUERY(…)` is a level), so that a format string is only accepted
        /// when its printed form parses back too.
        static func nesting(_ node: Node) -> Int {
            switch node {
            case .truePredicate, .falsePredicate:
                return 0
            case .comparison(let comparison):
                return max(nesting(comparison.left), nesting(comparison.right))
            case .not(let operand):
                return 2 + nesting(operand)
            case .and(let operands), .or(let operands):
                return operands.map { operand in
                    switch operand {
                    case .and, .or: 1 + nesting(operand)
                    default: nesting(operand)
                    }
                }.max() ?? 0
            }
        }

        static func nesting(_ expression: Operand) -> Int {
            switch expression {
            case .value(.date), .value(.binary), .value(.uuid), .value(.uri), .object:
                return 1
            case .aggregate(let elements):
                return 1 + (elements.map(nesting).max() ?? 0)
            case .collectionOperation(let operation, _):
                guard case .subquery(let subquery) = operation.source else { return 0 }
                return 1 + nesting(subquery.predicate)
            case .arithmetic(let arithmetic):
                return 1 + max(nesting(arithmetic.left), nesting(arithmetic.right))
            case .function(let call):
                return 1 + (call.arguments.map(nesting).max() ?? 0)
            default:
                return 0
            }
        }

        /// A key as a bare identifier, `#`-escaped when it is a reserved word.
        static func key(_ name: String) -> String {
            if Tokenizer.isIdentifier(name), Tokenizer.keyword(name) != nil {
                return "#" + name
            }
            return name
        }

        static func literal(_ value: AttributeValue) -> String {
            switch value {
            case .null: "nil"
            case .integer(let number): String(number)
            case .double(let number): numberLiteral(number)
            case .decimal(let number): numberLiteral(NSDecimalNumber(decimal: number).doubleValue)
            case .string(let text): quoted(text)
            case .boolean(let flag): flag ? "YES" : "NO"
            case .date(let date): "CAST(\(numberLiteral(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
            case .binary(let data): "CAST(\(quoted(data.base64EncodedString())), \"NSData\")"
            case .uuid(let uuid): "CAST(\(quoted(uuid.uuidString)), \"NSUUID\")"
            case .uri(let url): "CAST(\(quoted(url.absoluteString)), \"NSURL\")"
            }
        }

        /// A double that reads back as the same double (infinities as an overflowing literal).
        static func numberLiteral(_ number: Double) -> String {
            if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
            return String(number)
        }

        /// A double-quoted string literal with C escapes for quotes, backslashes and control characters.
        static func quoted(_ text: String) -> String {
            StringEscaping.quoted(text, style: .predicateFormat)
        }
    }
}

import Foundation

extension FetchPredicate {
    /// Prints trees in canonical format syntax: every compound operand of `AND`/`OR` and every `NOT`
    /// operand in parentheses, `==`/`!=` spellings, double-quoted strings, `YES`/`NO`/`nil`, and
    /// `CAST(…)` for dates, UUIDs, URLs and data, so that the text parses back to an equal tree
    /// whichever precedence a reader assumes.
    enum Printer {
        static func format(_ node: Node) -> String {
            switch node {
            case .truePredicate:
                return "TRUEPREDICATE"
            case .falsePredicate:
                return "FALSEPREDICATE"
            case .comparison(let comparison):
                return format(comparison)
            case .not(let operand):
                return "NOT (\(format(operand)))"
            case .and(let operands):
                return operands.isEmpty ? "TRUEPREDICATE" : operands.map(compoundOperand).joined(separator: " AND ")
            case .or(let operands):
                return operands.isEmpty ? "FALSEPREDICATE" : operands.map(compoundOperand).joined(separator: " OR ")
            }
        }

        static func compoundOperand(_ node: Node) -> String {
            switch node {
            case .and, .or: "(\(format(node)))"
            default: format(node)
            }
        }

        static func format(_ comparison: Comparison) -> String {
            var options = ""
            if comparison.options.contains(.caseInsensitive) { options += "c" }
            if comparison.options.contains(.diacriticInsensitive) { options += "d" }
            let modifier = options.isEmpty ? "" : "[\(options)]"
            return "\(format(comparison.left)) \(comparison.operation.rawValue)\(modifier) \(format(comparison.right))"
        }

        static func format(_ expression: Operand) -> String {
            switch expression {
            case .key(let name, _):
                return key(name)
            case .value(let value):
                return literal(value)
            case .variable(let name, _):
                return "$" + name
            case .aggregate(let elements):
                return "{" + elements.map(format).joined(separator: ", ") + "}"
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
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                default:
                    let category = scalar.properties.generalCategory
                    if category == .control || (category == .format && scalar.value < 0x10000) {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
    }
}

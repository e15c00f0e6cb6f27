import Foundation
import ObjectGraph

/// Reads the `query` command's typed arguments: `--arg VALUE`, `--var NAME=VALUE` and `--sort SPEC`.
enum QueryArguments {
    /// An `--arg` or `--var` value: a JSON array (`[1, 2, 3]`, `["Oslo", null]`) is a list for `IN %@` or
    /// `BETWEEN %@`; anything else is one value, as typed.
    static func value(_ text: String) -> FetchPredicate.TextValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("["), case .array(let elements)? = try? ImportJSONValue.parse(Data(trimmed.utf8)) else {
            return .text(text)
        }
        var texts: [String?] = []
        for element in elements {
            switch element {
            case .null: texts.append(nil)
            case .bool(let flag): texts.append(flag ? "true" : "false")
            case .number(let number): texts.append(number)
            case .string(let string): texts.append(string)
            case .array, .object: return .text(text)
            }
        }
        return .list(texts)
    }

    /// `NAME=VALUE` pairs, `NAME` with or without `$`.
    static func variables(_ specs: [String]) throws(CommandFailure) -> [String: FetchPredicate.TextValue] {
        var variables: [String: FetchPredicate.TextValue] = [:]
        for spec in specs {
            guard let equals = spec.firstIndex(of: "=") else {
                throw CommandFailure("invalid --var '\(spec)': write NAME=VALUE")
            }
            var name = String(spec[..<equals])
            if name.hasPrefix("$") { name.removeFirst() }
            guard !name.isEmpty else { throw CommandFailure("invalid --var '\(spec)': the name is empty") }
            variables[name] = value(String(spec[spec.index(after: equals)...]))
        }
        return variables
    }

    /// `KEY[:asc|:desc][:COMPARISON]`, where KEY may be a key path through to-one relationships and
    /// COMPARISON is `binary`, `c`, `cd`, `localized`, `localized-c` or `localized-standard`.
    static func sortCriterion(_ spec: String) throws(CommandFailure) -> SortCriterion {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let key = parts.first, !key.isEmpty else {
            throw CommandFailure("invalid --sort '\(spec)': the key is empty")
        }
        var criterion = SortCriterion(key)
        for part in parts.dropFirst() {
            switch part.lowercased() {
            case "asc": criterion.ascending = true
            case "desc": criterion.ascending = false
            default:
                guard let comparison = comparisons[part.lowercased()] else {
                    throw CommandFailure(
                        "invalid --sort '\(spec)': after ':' write asc or desc, or a comparison ("
                            + comparisons.keys.sorted().joined(separator: ", ") + ")")
                }
                criterion.comparison = comparison
            }
        }
        return criterion
    }

    static let comparisons: [String: SortCriterion.Comparison] = [
        "binary": .binary, "c": .caseInsensitive, "cd": .caseAndDiacriticInsensitive, "localized": .localized,
        "localized-c": .localizedCaseInsensitive, "localized-standard": .localizedStandard,
    ]
}

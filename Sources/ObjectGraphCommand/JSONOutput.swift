import Foundation
import ObjectGraph

/// A JSON value to print, with object keys kept in the order they were given.
///
/// `JSONSerialization` sorts or scrambles keys; listings read better when `name` comes first, so the
/// tool writes its JSON itself.
indirect enum JSONOutput: Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, already spelled as JSON (`42`, `1.5`, `1e+20`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONOutput])
    /// An object, keys in order.
    case object([(String, JSONOutput)])

    /// An integer.
    static func integer(_ value: some BinaryInteger) -> JSONOutput { .number(String(value)) }

    /// A floating-point number; `null` for NaN and infinities, which JSON cannot spell.
    static func double(_ value: Double) -> JSONOutput {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    /// A string, or `null` when `value` is nil.
    static func optionalString(_ value: String?) -> JSONOutput { value.map(JSONOutput.string) ?? .null }

    /// The value as JSON text, indented by two spaces per level, without a trailing newline.
    func rendered() -> String {
        var text = ""
        render(into: &text, indent: 0)
        return text
    }

    private func render(into text: inout String, indent: Int) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += value
        case .string(let value): Self.quote(value, into: &text)
        case .array(let elements):
            guard !elements.isEmpty else { text += "[]"; return }
            text += "[\n"
            for (index, element) in elements.enumerated() {
                text += String(repeating: "  ", count: indent + 1)
                element.render(into: &text, indent: indent + 1)
                text += index < elements.count - 1 ? ",\n" : "\n"
            }
            text += String(repeating: "  ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else { text += "{}"; return }
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += String(repeating: "  ", count: indent + 1)
                Self.quote(key, into: &text)
                text += ": "
                value.render(into: &text, indent: indent + 1)
                text += index < members.count - 1 ? ",\n" : "\n"
            }
            text += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// Appends `string` as a JSON string literal: quotes, backslashes and control characters escaped.
    private static func quote(_ string: String, into text: inout String) {
        text += StringEscaping.quoted(string, style: .json)
    }

    static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool {
        lhs.rendered() == rhs.rendered()
    }
}

/// The one string escaper of the package: text written as a literal of a language that must read it back (a
/// predicate format string, a Swift string literal, JSON) or shown on one line of a table.
///
/// The styles differ only where their languages differ: which quote and backslash escapes they take, how a
/// control character is spelled (`\u0007` or `\u{7}`), and which scalars count as unsafe.
package enum StringEscaping {
    /// Whose rules to follow.
    package enum Style: Sendable {
        /// A predicate format string literal (``FetchPredicate/predicateFormat``): C escapes, `\uXXXX` (upper-case
        /// hex) for control characters and for invisible format characters of the Basic Multilingual Plane.
        case predicateFormat
        /// A Swift string literal: `\u{x}` for control characters below U+0020.
        case swift
        /// A JSON string (RFC 8259): `\uxxxx` (lower-case hex) for control characters, DEL and invisible format
        /// characters of the Basic Multilingual Plane.
        case json
        /// Text shown on one line of a table: only line breaks, tabs and other control characters (and DEL)
        /// escaped, as `\u{x}`; quotes and backslashes stay as they are.
        case display
    }

    /// `text` with the escapes of `style`, without surrounding quotes.
    package static func escaped(_ text: String, style: Style) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where style != .display: result += "\\\""
            case "\\" where style != .display: result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if needsEscape(scalar, style: style) {
                    result += escape(scalar, style: style)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// `text` in double quotes with the escapes of `style`.
    package static func quoted(_ text: String, style: Style) -> String {
        "\"" + escaped(text, style: style) + "\""
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, style: Style) -> Bool {
        switch style {
        case .predicateFormat:
            let category = scalar.properties.generalCategory
            return category == .control || (category == .format && scalar.value < 0x10000)
        case .json:
            // Invisible format characters too (a byte-order mark inside a string is dropped by some readers).
            return scalar.value < 0x20 || scalar.value == 0x7F
                || (scalar.properties.generalCategory == .format && scalar.value < 0x10000)
        case .swift: return scalar.value < 0x20
        case .display: return scalar.value < 0x20 || scalar.value == 0x7F
        }
    }

    private static func escape(_ scalar: Unicode.Scalar, style: Style) -> String {
        switch style {
        case .predicateFormat, .json:
            let hex = String(scalar.value, radix: 16, uppercase: style == .predicateFormat)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        case .swift, .display:
            return "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
}

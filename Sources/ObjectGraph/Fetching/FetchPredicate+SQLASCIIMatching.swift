import Foundation

// Case-insensitive BEGINSWITH / CONTAINS / ENDSWITH answered by SQLite's own LIKE where it is exact.

extension FetchPredicate.SQLCompiler {
    /// `column BEGINSWITH[c] 'x'`, `CONTAINS[c]`, `ENDSWITH[c]` (and `[cd]`) against a constant, as SQL that
    /// calls no Swift function for ASCII values; nil when the shortcut does not apply.
    ///
    /// Why it is exact: folding (``Folding/lowercase`` or ``Folding/fold``) leaves ASCII text as its ASCII
    /// lower-casing, and SQLite's `LIKE` is case-insensitive for exactly the ASCII letters. So for a value whose
    /// characters are all ASCII and a folded needle that is all ASCII, `LIKE 'needle%'` (`'%needle%'`,
    /// `'%needle'`, with the needle's `%`, `_` and `\` escaped) answers what the folded comparison answers.
    /// Other values — any non-ASCII character, or a NUL, which makes `length()` count fewer characters than
    /// there are bytes — go through the folding function as before. (Stray bytes that are not UTF-8 never
    /// take part in an ASCII match on either side: SQLite reads them as U+FFFD, the folding as U+FFFD.)
    ///
    /// Only plain columns qualify: a to-one key path is a subquery, which the test would run several times.
    static func asciiAwareAffixMatch(
        _ operation: FetchPredicate.Operator, _ left: SQLOperand, _ right: SQLOperand, folding: Folding
    ) -> SQLFragment? {
        guard folding == .lowercase || folding == .fold,
            case .column(let column) = left, isPlainColumn(column),
            case .constant(let value) = right, let text = value.predicateText
        else { return nil }
        let needle = folding.apply(text)
        guard needle.utf8.allSatisfy({ $0 != 0 && $0 < 0x80 }) else { return nil }
        let escaped = likeEscaped(needle)
        let pattern: String
        switch operation {
        case .beginsWith: pattern = escaped + "%"
        case .contains: pattern = "%" + escaped + "%"
        case .endsWith: pattern = "%" + escaped
        default: return nil
        }
        let folded = columnSQL(column, folding: folding, plain: true)
        let general = textOperationCore(operation, folded, SQLFragment.bind(.string(needle)), options: [])
        let isASCII = "length(CAST(" + column + " AS BLOB)) = length(" + column + ")"
        let choice =
            "(CASE WHEN " + isASCII + " THEN " + column + " LIKE " + SQLFragment.bind(.string(pattern))
            + " ESCAPE '\\' ELSE " + general + " END)"
        return SQLFragment.group([choice, typeGuard(column, .text, admittingNull: true)], separator: " AND ")
    }

    /// Whether `column` names a column of the row (letters, digits, `_`, `.` and the quotes of quoted names),
    /// not an expression.
    private static func isPlainColumn(_ column: SQLFragment) -> Bool {
        column.bindings.isEmpty && !column.sql.isEmpty
            && column.sql.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x5F || byte == 0x2E || byte == 0x22
            }
    }

    /// `text` with `LIKE`'s wildcards and the escape character made literal (escape character `\`).
    private static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            if character == "%" || character == "_" || character == "\\" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(character)
        }
        return escaped
    }
}

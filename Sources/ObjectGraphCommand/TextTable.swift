/// A table of text printed in aligned columns, measured in terminal cells (so `東京` counts as four and
/// a combining accent as none).
struct TextTable {
    /// How a column's cells line up.
    enum Alignment {
        case left, right
    }

    /// The column titles.
    var headers: [String]
    /// The alignment of each column.
    var alignments: [Alignment]
    /// The rows; each has one cell per column.
    var rows: [[String]] = []

    /// Creates an empty table with `headers`, left-aligned unless `alignments` says otherwise.
    init(headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? Array(repeating: .left, count: headers.count)
    }

    /// The table: a header line, a rule, and one line per row; columns two spaces apart, no trailing
    /// spaces.
    func rendered() -> String {
        var widths = headers.map(DisplayWidth.of)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], DisplayWidth.of(cell))
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (column, width) in widths.enumerated() {
                let cell = column < cells.count ? cells[column] : ""
                let padding = String(repeating: " ", count: max(0, width - DisplayWidth.of(cell)))
                parts.append(alignments[column] == .right ? padding + cell : cell + padding)
            }
            var text = parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        while rule.last == " " { rule.removeLast() }
        var lines = [line(headers), rule]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

/// How many terminal cells text takes, after Unicode's East Asian Width: wide and fullwidth characters
/// (CJK, Hangul, most emoji) take two, combining marks and zero-width characters none, the rest one.
enum DisplayWidth {
    /// The width of `text` in cells.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The width of one character (an extended grapheme cluster) in cells.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
            || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji
        {
            return 2
        }
        if isWide(first.value) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return first.value < 0x20 ? 0 : 1
        }
    }

    /// Whether a code point is East Asian Wide or Fullwidth (the main ranges).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}

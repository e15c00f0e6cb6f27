extension DisplayWidth {
    /// `text` broken into lines of at most `width` cells, at spaces where it can be: help and messages that
    /// would otherwise be cut off at the edge of a narrow window.
    ///
    /// Runs of spaces between words collapse to one; a word wider than a whole line is split where it
    /// fills the line. Empty text gives one empty line; a width below 1 gives the text on one line.
    public static func wrapped(_ text: some StringProtocol, width: Int) -> [String] {
        guard width >= 1 else { return [String(text)] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ") {
            var rest = Substring(word)
            var restWidth = of(rest)
            if !line.isEmpty, lineWidth + 1 + restWidth <= width {
                line += " " + rest
                lineWidth += 1 + restWidth
                continue
            }
            if !line.isEmpty { lines.append(line) }
            // A word longer than a line fills whole lines first.
            while restWidth > width {
                var (head, headWidth) = prefix(of: rest, fitting: width)
                // A wide character alone wider than the line still goes somewhere.
                if head.isEmpty, let first = rest.first { head = rest.prefix(1); headWidth = of(first) }
                lines.append(String(head))
                rest = rest.dropFirst(head.count)
                restWidth -= headWidth
            }
            line = String(rest)
            lineWidth = restWidth
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}

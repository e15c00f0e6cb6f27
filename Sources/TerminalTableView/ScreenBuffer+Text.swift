extension ScreenBuffer {
    /// The text of each row, with trailing spaces removed; wide characters appear once.
    ///
    /// Made for assertions: compare with a multi-line string literal, where CJK text lines up in a
    /// monospaced editor just as it does on the terminal.
    public var lines: [String] {
        (0..<size.rows).map { row in
            var line = ""
            for column in 0..<size.columns {
                let cell = self[column, row]
                if !cell.isContinuation { line.append(cell.character) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The text of each row with styled runs marked up, so that tests can assert styles too.
    ///
    /// Runs in the plain style are written as they are; a run in another style is written `{k:text}`,
    /// where `k` is the key of that style in `legend` (`?` when the legend has no entry for it). Trailing
    /// plain spaces are removed. When two keys name the same style, the smaller key is used. This is
    /// the markup neovim's screen tests use.
    ///
    ///     buffer.annotatedLines(legend: ["r": .reverse, "g": .foreground(.green)])
    ///     // ["{r:▸ Alvarez, José  }", "  {g:Baker, Sam}"]
    public func annotatedLines(legend: [Character: TextStyle]) -> [String] {
        (0..<size.rows).map { row in annotatedLine(row, legend: legend) }
    }

    private func annotatedLine(_ row: Int, legend: [Character: TextStyle]) -> String {
        // The last column that is not a plain blank: everything after it is trimmed.
        var end = size.columns
        while end > 0 {
            let cell = self[end - 1, row]
            if cell.style != .plain || (cell.character != " " && !cell.isContinuation) { break }
            end -= 1
        }
        var result = ""
        var runStyle: TextStyle?
        for column in 0..<end {
            let cell = self[column, row]
            if cell.isContinuation { continue }
            if cell.style != runStyle {
                if let runStyle, runStyle != .plain { result.append("}") }
                if cell.style != .plain {
                    let key = legend.filter { $0.value == cell.style }.keys.min() ?? "?"
                    result.append("{\(key):")
                }
                runStyle = cell.style
            }
            result.append(cell.character)
        }
        if let runStyle, runStyle != .plain { result.append("}") }
        return result
    }
}

/// A grid of styled cells: one frame of a terminal screen, built in memory.
///
/// Views draw into a buffer; a ``TerminalScreen`` shows it. Keeping the frame as a value makes
/// drawing testable without a terminal (compare ``lines`` with the expected text) and lets the
/// ncurses screen send only the cells that changed since the previous frame.
///
/// The buffer keeps one invariant: a continuation cell always follows the wide character it belongs
/// to. Writing over either half of a wide character blanks the other half.
public struct ScreenBuffer: Sendable, Hashable {
    /// The width and height of the grid.
    public private(set) var size: TerminalSize
    /// The cells, row by row.
    var cells: [ScreenCell]

    /// Creates a buffer of `size` filled with `cell`.
    public init(size: TerminalSize, filledWith cell: ScreenCell = .blank) {
        self.size = size
        self.cells = Array(repeating: cell.isContinuation ? .blank : cell, count: size.columns * size.rows)
    }

    /// The whole buffer as a rectangle at the origin.
    public var bounds: TerminalRect { TerminalRect(size: size) }

    /// The cell at `column`, `row`; a blank cell outside the grid.
    public subscript(column: Int, row: Int) -> ScreenCell {
        guard contains(column: column, row: row) else { return .blank }
        return cells[row * size.columns + column]
    }

    /// Fills `rect` (clipped to the buffer) with `character` in `style`.
    ///
    /// Use it to clear a region before drawing, or to paint a background, for example the reverse-video
    /// bar of a selected row.
    public mutating func fill(_ rect: TerminalRect, character: Character = " ", style: TextStyle = .plain) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        let width = DisplayWidth.of(character)
        for row in area.y..<area.maxY {
            if width == 2 {
                var column = area.x
                while column + 1 < area.maxX {
                    put(character, width: 2, style: style, column: column, row: row)
                    column += 2
                }
                if column < area.maxX { put(" ", width: 1, style: style, column: column, row: row) }
            } else {
                // Only the ends can cut a wide character in half; the cells between are plain stores.
                let cell = ScreenCell(width == 1 ? character : " ", style: style)
                releaseWideCharacter(at: area.x, row: row)
                releaseWideCharacter(at: area.maxX - 1, row: row)
                let base = row * size.columns
                cells.withUnsafeMutableBufferPointer { cells in
                    for index in (base + area.x)..<(base + area.maxX) { cells[index] = cell }
                }
            }
        }
    }

    /// Blanks the whole buffer.
    public mutating func clear() {
        cells = Array(repeating: .blank, count: cells.count)
    }

    /// Writes `text` starting at `column`, `row`, and returns how many columns it used.
    ///
    /// Clipping is by display width: at most `maxWidth` columns (and never past the right edge) are
    /// used, and a wide character that does not fit whole is left out rather than cut in half, so columns
    /// to its right stay aligned. Combining marks and other zero-width characters join the character
    /// before them; control characters are dropped. Nothing is written outside the grid.
    @discardableResult
    public mutating func write(
        _ text: some StringProtocol, at column: Int, row: Int, style: TextStyle = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard row >= 0, row < size.rows else { return 0 }
        let limit = maxWidth.map { column + max(0, min($0, size.columns)) } ?? size.columns
        let right = min(limit, size.columns)
        var x = column
        var lastWritten: Int?
        /// Places one piece; false when it does not fit (writing stops there).
        func place(_ character: Character, width: Int) -> Bool {
            if width == 0 {
                attach(character, to: lastWritten ?? leadingColumn(before: x, row: row), row: row)
                return true
            }
            if x + width > right { return false }
            if x >= 0 {
                put(character, width: width, style: style, column: x, row: row)
                lastWritten = x
            }
            x += width
            return true
        }
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            // Printable ASCII, the common case: one cell per byte, nothing to measure.
            for byte in text.utf8 {
                if x + 1 > right { break }
                if x >= 0 { put(Character(Unicode.Scalar(byte)), width: 1, style: style, column: x, row: row) }
                x += 1
            }
            return max(0, x - column)
        }
        characters: for character in text {
            let scalars = character.unicodeScalars
            if scalars.count > 1, let first = scalars.first, first.value >= 0x2000 {
                // An emoji sequence the terminal draws piece by piece takes a cell run per piece.
                let emojiWidths = DisplayWidth.emojiWidths
                let parts = DisplayWidth.drawnParts(of: character, emojiWidths: emojiWidths)
                if parts.count > 1 {
                    // All or nothing, so that a sequence is never cut in half at the right edge.
                    let total = parts.reduce(0) { $0 + DisplayWidth.wholeWidth(of: $1, emojiWidths: emojiWidths) }
                    if x + total > right { break characters }
                    for part in parts {
                        _ = place(part, width: DisplayWidth.wholeWidth(of: part, emojiWidths: emojiWidths))
                    }
                    continue
                }
                guard place(character, width: DisplayWidth.wholeWidth(of: character, emojiWidths: emojiWidths))
                else { break }
                continue
            }
            guard place(character, width: DisplayWidth.of(character)) else { break }
        }
        return max(0, x - column)
    }

    // MARK: - Cell placement

    func contains(column: Int, row: Int) -> Bool {
        column >= 0 && column < size.columns && row >= 0 && row < size.rows
    }

    /// Places a character of display `width` (1 or 2) at `column`, keeping wide characters whole.
    private mutating func put(_ character: Character, width: Int, style: TextStyle, column: Int, row: Int) {
        let base = row * size.columns
        releaseWideCharacter(at: column, row: row)
        cells[base + column] = ScreenCell(character, style: style)
        if width == 2, column + 1 < size.columns {
            releaseWideCharacter(at: column + 1, row: row)
            cells[base + column + 1] = .continuation(style: style)
        }
    }

    /// Before `column` is overwritten: blank the other half of a wide character that covers it.
    private mutating func releaseWideCharacter(at column: Int, row: Int) {
        let base = row * size.columns
        let cell = cells[base + column]
        if cell.isContinuation, column > 0 {
            cells[base + column - 1] = ScreenCell(" ", style: cells[base + column - 1].style)
        } else if column + 1 < size.columns, cells[base + column + 1].isContinuation {
            cells[base + column + 1] = ScreenCell(" ", style: cells[base + column + 1].style)
        }
    }

    /// The column of the character that ends just before `column`, skipping a continuation cell.
    private func leadingColumn(before column: Int, row: Int) -> Int? {
        var candidate = column - 1
        guard contains(column: candidate, row: row) else { return nil }
        if self[candidate, row].isContinuation { candidate -= 1 }
        return candidate >= 0 ? candidate : nil
    }

    /// Appends a zero-width character (a combining mark) to the cell at `column`, when the result is
    /// still a single grapheme; anything else (a control character, a stray joiner) is dropped.
    private mutating func attach(_ mark: Character, to column: Int?, row: Int) {
        guard let column, contains(column: column, row: row),
            mark.unicodeScalars.first?.properties.generalCategory != .control
        else { return }
        let index = row * size.columns + column
        let combined = String(cells[index].character) + String(mark)
        guard combined.count == 1, let character = combined.first else { return }
        cells[index].character = character
    }
}

import TerminalTableView

/// One line of editable text with a cursor: the filter field, the import prompt and the form fields.
///
/// Keys: printable characters insert at the cursor, Backspace and Delete remove, ←/→ move by a
/// character, Home/End jump to the ends. The cursor counts `Character`s, so it never stands inside a
/// grapheme.
public struct LineEditor: Sendable, Hashable {
    /// The text.
    public private(set) var text: String
    /// The cursor position, in characters from the start (0...text.count).
    public private(set) var cursor: Int

    /// Creates an editor holding `text`, with the cursor at its end.
    public init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// Applies an editing key. Returns true when the key was an editing key (even if nothing changed),
    /// false for keys the editor does not use (Enter, Escape, ↑, ↓, Tab, …).
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            guard !character.isNewline else { return false }
            let index = text.index(text.startIndex, offsetBy: cursor)
            text.insert(character, at: index)
            cursor += 1
        case .backspace:
            guard cursor > 0 else { return true }
            let index = text.index(text.startIndex, offsetBy: cursor - 1)
            text.remove(at: index)
            cursor -= 1
        case .delete:
            guard cursor < text.count else { return true }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        case .left:
            cursor = max(0, cursor - 1)
        case .right:
            cursor = min(text.count, cursor + 1)
        case .home:
            cursor = 0
        case .end:
            cursor = text.count
        default:
            return false
        }
        return true
    }

    /// Replaces the text and puts the cursor at its end.
    public mutating func setText(_ newText: String) {
        text = newText
        cursor = newText.count
    }

    /// Draws the text at `column`, `row` in at most `width` cells, the cursor as a reverse-video cell
    /// when `showsCursor`. When the text is wider than the space, it scrolls so that the cursor stays
    /// visible. Returns the column the drawn text starts at for character 0 (it may be left of `column`
    /// when scrolled), so callers can place markers under characters.
    @discardableResult
    public func draw(
        into buffer: inout ScreenBuffer, column: Int, row: Int, width: Int, style: TextStyle = .plain,
        showsCursor: Bool = true
    ) -> Int {
        guard width > 0 else { return column }
        let characters = Array(text)
        let beforeCursor = DisplayWidth.of(String(characters[..<cursor]))
        // Keep one cell for the cursor itself.
        let shift = max(0, beforeCursor - (width - 1))
        var skipped = 0
        var start = 0
        while start < characters.count, skipped < shift {
            skipped += DisplayWidth.of(characters[start])
            start += 1
        }
        var x = column
        for index in start..<characters.count {
            let characterWidth = DisplayWidth.of(characters[index])
            if x + characterWidth > column + width { break }
            let isCursor = showsCursor && index == cursor
            buffer.write(String(characters[index]), at: x, row: row,
                style: isCursor ? style.applying(.reverse) : style, maxWidth: column + width - x)
            x += characterWidth
        }
        if showsCursor, cursor == characters.count, x < column + width {
            buffer.write(" ", at: x, row: row, style: style.applying(.reverse), maxWidth: 1)
        }
        return column - skipped
    }
}

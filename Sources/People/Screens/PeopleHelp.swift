import TerminalTableView

/// The key list `?` shows.
enum PeopleHelp {
    /// Every key of the browser and what it does.
    static let keys: [(keys: String, meaning: String)] = [
        ("↑ ↓  j k", "move the cursor"),
        ("PgUp PgDn", "move by a screenful"),
        ("Home End", "first and last person"),
        ("g then a letter", "jump to that section (as in the index on the right)"),
        ("click, wheel", "select a row, jump by the index, scroll"),
        ("Enter", "show the person's details"),
        ("/", "filter: words (name, email, city) or a predicate (age > 40)"),
        ("Esc", "clear the filter; close a view"),
        ("s", "sort and section by last name, first name, city or age"),
        ("i", "import 10,000 generated people in the background"),
        ("I", "import a JSON, JSON Lines or CSV file in the background"),
        ("n  e  d", "new person, edit, delete (asks first)"),
        ("D", "delete everyone the filter shows (asks first; no undo)"),
        ("u", "undo your last add, edit or delete"),
        ("U", "redo what u undid"),
        ("?", "this help"),
        ("q", "quit"),
    ]

    /// What `u` and `U` would do now: the names of the undo and redo steps ("" for none).
    struct UndoState {
        var undoName = ""
        var redoName = ""
    }

    /// The meaning shown for `entry`, with the live parts filled in.
    static func meaning(of entry: (keys: String, meaning: String), importOnKey: Int, undo: UndoState) -> String {
        switch entry.keys {
        case "i": "import \(NumberText.grouped(importOnKey)) generated people in the background"
        case "u": undo.undoName.isEmpty ? entry.meaning + " (nothing to undo)" : "undo \(undo.undoName)"
        case "U": undo.redoName.isEmpty ? entry.meaning + " (nothing to redo)" : "redo \(undo.redoName)"
        default: entry.meaning
        }
    }

    /// Columns the keys take, before their meanings.
    static let keyWidth = 17

    /// Each key with its meaning, the live parts filled in.
    private static func meanings(importOnKey: Int, undo: UndoState) -> [(keys: String, meaning: String)] {
        keys.map { ($0.keys, meaning(of: $0, importOnKey: importOnKey, undo: undo)) }
    }

    /// The help's lines for meanings `meaningWidth` cells wide: each meaning word-wrapped, the key on its first
    /// line only.
    private static func lines(meanings: [(keys: String, meaning: String)], meaningWidth: Int) -> [(keys: String, text: String)] {
        meanings.flatMap { entry in
            DisplayWidth.wrapped(entry.meaning, width: meaningWidth)
                .enumerated().map { number, text in (number == 0 ? entry.keys : "", text) }
        }
    }

    /// Draws the help box centred in `rect`: as wide as its longest line where the window allows, its
    /// meanings wrapped where it does not.
    static func draw(importOnKey: Int, undo: UndoState = UndoState(), into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        let meanings = meanings(importOnKey: importOnKey, undo: undo)
        let longest = meanings.map { DisplayWidth.of($0.meaning) }.max() ?? 0
        let width = min(rect.width, 4 + keyWidth + longest)
        guard width >= 20 else { return }
        let lines = lines(meanings: meanings, meaningWidth: width - 4 - keyWidth)
        let height = min(rect.height, lines.count + 3)
        guard height >= 3 else { return }
        let box = TerminalRect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2,
            width: width, height: height)
        OverlayBox.draw(title: "Keys", into: &buffer, in: box)
        for (offset, line) in lines.enumerated() where box.y + 1 + offset < box.maxY - 1 {
            let y = box.y + 1 + offset
            buffer.write(line.keys, at: box.x + 2, row: y, style: .bold, maxWidth: keyWidth)
            buffer.write(line.text, at: box.x + 2 + keyWidth, row: y, maxWidth: box.width - 4 - keyWidth)
        }
        buffer.write("any key closes", at: box.x + 2, row: box.maxY - 2, style: .dim, maxWidth: box.width - 4)
    }
}

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
        ("/", "filter by words (names, email, city) or a predicate (age > 40)"),
        ("Esc", "clear the filter; close a view"),
        ("s", "sort and section by last name, first name, city or age"),
        ("i", "import 10,000 generated people in the background"),
        ("I", "import a JSON or CSV file in the background"),
        ("n  e  d", "new person, edit, delete (asks first)"),
        ("D", "delete everyone the filter shows (asks first; cannot be undone)"),
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

    /// Draws the help box centred in `rect`.
    static func draw(importOnKey: Int, undo: UndoState = UndoState(), into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        let width = min(rect.width, 78)
        let height = min(rect.height, keys.count + 3)
        guard width >= 20, height >= 3 else { return }
        let box = TerminalRect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2,
            width: width, height: height)
        OverlayBox.draw(title: "Keys", into: &buffer, in: box)
        let keyWidth = 17
        for (offset, entry) in keys.enumerated() where box.y + 1 + offset < box.maxY - 1 {
            let y = box.y + 1 + offset
            let meaning = meaning(of: entry, importOnKey: importOnKey, undo: undo)
            buffer.write(entry.keys, at: box.x + 2, row: y, style: .bold, maxWidth: keyWidth)
            buffer.write(meaning, at: box.x + 2 + keyWidth, row: y, maxWidth: max(0, box.width - 4 - keyWidth))
        }
        buffer.write("any key closes", at: box.x + 2, row: box.maxY - 2, style: .dim, maxWidth: box.width - 4)
    }
}

import TerminalTableView

/// The hints of the key line, fitted to the room the line has: whole hints only, never one cut in the
/// middle (`u u…` for `u undo`), the least needed left out first and the rest kept in their order.
struct KeyHints {
    /// One hint, and how readily it is left out: hints of rank 0 stay while anything does, and of the
    /// others the highest rank goes first (the later one, between equal ranks).
    struct Hint {
        var text: String
        var rank: Int
    }

    var hints: [Hint]
    /// What goes between two hints.
    var separator: String

    /// The hints ranked by their position: the first always kept, each later one left out before those
    /// before it.
    init(inOrder texts: [String], separator: String = " · ") {
        hints = texts.enumerated().map { Hint(text: $1, rank: $0) }
        self.separator = separator
    }

    init(_ hints: [Hint], separator: String) {
        self.hints = hints
        self.separator = separator
    }

    /// The line (with a leading space) of as many hints as fit in `width` columns. When not even the
    /// hints of rank 0 fit, all of those are given, for the caller to cut.
    func fitted(to width: Int) -> String {
        var kept = hints
        while DisplayWidth.of(Self.line(kept, separator)) > width,
            let drop = kept.indices.filter({ kept[$0].rank > 0 }).max(by: { (kept[$0].rank, $0) < (kept[$1].rank, $1) })
        {
            kept.remove(at: drop)
        }
        return Self.line(kept, separator)
    }

    private static func line(_ hints: [Hint], _ separator: String) -> String {
        " " + hints.map(\.text).joined(separator: separator)
    }
}

import Synchronization

/// How the terminal draws the emoji sequences that terminals disagree on.
///
/// A single emoji is two cells everywhere, but sequences are not: tmux 3.3 draws `❤️` (a text-style
/// heart made emoji-style by U+FE0F) in one cell and `👍🏽` (a thumb and a skin-tone modifier) as two
/// glyphs in four cells, while kitty draws both as one glyph of two cells. Laying out with the wrong
/// widths shifts every column to the right of the emoji, so ``CursesScreen`` asks the terminal (see
/// ``probeTexts``) and installs its answer as ``DisplayWidth/emojiWidths``.
public struct EmojiWidths: Sendable, Hashable, CustomStringConvertible {
    /// Cells taken by an emoji presentation sequence: a text-style character with U+FE0F (`❤️`) or a
    /// keycap (`#️⃣`). 1 or 2.
    public var presentationSequence: Int
    /// Whether an emoji with a skin-tone modifier (`👍🏽`) is one glyph (else the modifier is drawn on
    /// its own after it).
    public var combinesModifiers: Bool
    /// Whether a zero-width-joiner sequence (`👨‍👩‍👧`) is one glyph (else each emoji in it is drawn).
    public var combinesJoinedSequences: Bool
    /// Whether a flag (two regional indicators, `🇩🇪`) is one glyph (else each letter is drawn).
    public var combinesFlags: Bool

    /// Creates a description; the defaults are what most modern terminals do (every sequence one
    /// glyph of two cells).
    public init(
        presentationSequence: Int = 2, combinesModifiers: Bool = true, combinesJoinedSequences: Bool = true,
        combinesFlags: Bool = true
    ) {
        self.presentationSequence = presentationSequence == 1 ? 1 : 2
        self.combinesModifiers = combinesModifiers
        self.combinesJoinedSequences = combinesJoinedSequences
        self.combinesFlags = combinesFlags
    }

    /// Every sequence one glyph of two cells.
    public static let standard = EmojiWidths()

    /// The texts to measure, in the order ``init(measuredWidths:)`` expects their widths: a presentation
    /// sequence, a modifier sequence, a joiner sequence and a flag.
    public static let probeTexts = [
        "\u{2764}\u{FE0F}", "\u{1F44D}\u{1F3FD}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1E9}\u{1F1EA}",
    ]

    /// The description that matches widths a terminal reported for ``probeTexts`` (in cells, -1 or a
    /// missing entry for no answer, which keeps the standard behaviour for that kind).
    public init(measuredWidths widths: [Int]) {
        func width(_ index: Int) -> Int? { index < widths.count && widths[index] >= 0 ? widths[index] : nil }
        self.init(
            presentationSequence: width(0) ?? 2,
            combinesModifiers: width(1).map { $0 <= 2 } ?? true,
            combinesJoinedSequences: width(2).map { $0 <= 2 } ?? true,
            combinesFlags: width(3).map { $0 <= 2 } ?? true)
    }

    /// `presentation 1, modifiers split, joiners combined, flags combined`.
    public var description: String {
        "presentation \(presentationSequence), modifiers \(combinesModifiers ? "combined" : "split"), "
            + "joiners \(combinesJoinedSequences ? "combined" : "split"), flags \(combinesFlags ? "combined" : "split")"
    }

    // MARK: - Packed form, for the process-wide setting

    var packed: UInt8 {
        (presentationSequence == 1 ? 1 : 0) | (combinesModifiers ? 0 : 2) | (combinesJoinedSequences ? 0 : 4)
            | (combinesFlags ? 0 : 8)
    }

    init(packed: UInt8) {
        self.init(
            presentationSequence: packed & 1 != 0 ? 1 : 2, combinesModifiers: packed & 2 == 0,
            combinesJoinedSequences: packed & 4 == 0, combinesFlags: packed & 8 == 0)
    }
}

extension DisplayWidth {
    private static let emojiSetting = Atomic<UInt8>(0)

    /// How this process's terminal draws emoji sequences; ``CursesScreen`` sets it after asking the
    /// terminal. Safe to read and set from any thread; set it before drawing.
    public static var emojiWidths: EmojiWidths {
        get { emojiWidthsOverride ?? EmojiWidths(packed: emojiSetting.load(ordering: .relaxed)) }
        set { emojiSetting.store(newValue.packed, ordering: .relaxed) }
    }

    /// Lets a test use other emoji widths without touching the process-wide setting.
    @TaskLocal static var emojiWidthsOverride: EmojiWidths?
}

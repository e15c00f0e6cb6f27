/// How many terminal cells text occupies, computed in pure Swift.
///
/// C's `wcwidth` depends on the process locale (it answers -1 for every non-ASCII character until
/// `setlocale` has run), so it cannot be trusted in tests or in library code. These rules follow the
/// terminals we target:
///
/// - East Asian Wide and Fullwidth characters, and characters with emoji presentation, take 2 cells.
/// - Combining and enclosing marks, format characters (zero-width space, joiners, BOM) and the medial and
///   final Hangul jamo take 0 cells: they attach to the character before them.
/// - Control characters take 0 cells (they are not drawn).
/// - Everything else takes 1 cell.
public enum DisplayWidth {
    /// The width of one Unicode scalar: 0, 1 or 2.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }  // ASCII and Latin: the common fast path (the soft hyphen counts 1, as in glibc).
        switch scalar.properties.generalCategory {
        case .format:
            // Prepended concatenation marks (Arabic number signs and the like) are visible.
            return prependedConcatenationMarks.contains(value) ? 1 : 0
        case .nonspacingMark, .enclosingMark, .control:
            return 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// The width of one grapheme cluster, as the terminal lays it out: the width of its base character,
    /// widened for emoji sequences (an emoji variation selector, a flag, a keycap), or the sum of its
    /// pieces when the terminal draws an emoji sequence piece by piece (see ``emojiWidths``).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        // The common case, one scalar: no emoji sequence to look up.
        if scalars.count == 1, let only = scalars.first { return of(only) }
        return of(character, emojiWidths: emojiWidths)
    }

    /// The width of a grapheme drawn as one glyph.
    static func wholeWidth(of character: Character, emojiWidths: EmojiWidths) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.generalCategory == .control { return 0 }
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }  // regional indicators (flags)
        let base = of(first)
        if base < 2, scalars.count > 1, first.properties.isEmoji,
            scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x20E3 })
        {
            return emojiWidths.presentationSequence
        }
        if base > 0 { return base }
        // A cluster that starts with a zero-width scalar (a lone combining mark, for example).
        return scalars.dropFirst().map { of($0) }.max() ?? 0
    }

    /// The total width of `text`.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The longest prefix of `text` that fits in `width` cells, and its width.
    ///
    /// A wide character that would straddle the limit is left out, so the result may be one cell
    /// narrower than `width`.
    public static func prefix(of text: some StringProtocol, fitting width: Int) -> (text: Substring, width: Int) {
        let string = Substring(text)
        var used = 0
        var end = string.startIndex
        for index in string.indices {
            let cells = of(string[index])
            if used + cells > width { break }
            used += cells
            end = string.index(after: index)
        }
        return (string[string.startIndex..<end], used)
    }

    private static let prependedConcatenationMarks: Set<UInt32> = [
        0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD,
    ]

    /// East Asian Wide (W) and Fullwidth (F) code points from Unicode's EastAsianWidth.txt, excluding
    /// those that emoji presentation already covers; the circled numbers U+3248–U+324F (ambiguous)
    /// count as wide, as in glibc, whose `wcwidth` these rules match for every assigned code point it
    /// knows except single regional indicators (2 here, so that a flag is never cut in half).
    private static func isWide(_ value: UInt32) -> Bool {
        if value < 0x1100 { return false }
        var low = 0
        var high = wideRanges.count
        while low < high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if value < range.lowerBound {
                high = mid
            } else if value > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFF,
        0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3,
        0x31EF...0x321E, 0x3220...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,
        0x1AFF0...0x1AFF3, 0x1AFF5...0x1AFFB, 0x1AFFD...0x1AFFE, 0x1B000...0x1B122, 0x1B132...0x1B132,
        0x1B150...0x1B152, 0x1B155...0x1B155, 0x1B164...0x1B167, 0x1B170...0x1B2FB, 0x1F200...0x1F202,
        0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]
}

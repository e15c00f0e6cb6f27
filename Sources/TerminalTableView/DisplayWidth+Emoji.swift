extension DisplayWidth {
    /// The pieces a terminal draws `character` as, each in cells of its own: the character itself, or,
    /// for an emoji sequence the terminal does not combine into one glyph (see ``EmojiWidths``), its
    /// emoji one by one — joiners dropped, variation selectors kept with their emoji.
    ///
    /// ``ScreenBuffer`` writes each piece into its own cells, so the columns it lays out match what the
    /// terminal shows.
    public static func drawnParts(of character: Character, emojiWidths: EmojiWidths = emojiWidths) -> [Character] {
        let scalars = character.unicodeScalars
        guard scalars.count > 1, let first = scalars.first, first.value >= 0x1F00 else { return [character] }
        let isFlag = (0x1F1E6...0x1F1FF).contains(first.value)
        if isFlag {
            return emojiWidths.combinesFlags ? [character] : scalars.map { Character($0) }
        }
        guard first.properties.isEmoji else { return [character] }
        var parts: [Character] = []
        var joined = [String.UnicodeScalarView()]
        if emojiWidths.combinesJoinedSequences {
            joined = [String.UnicodeScalarView(scalars)]
        } else {
            for scalar in scalars {
                if scalar.value == 0x200D {
                    joined.append(String.UnicodeScalarView())
                } else {
                    joined[joined.count - 1].append(scalar)
                }
            }
        }
        for piece in joined where !piece.isEmpty {
            if !emojiWidths.combinesModifiers, piece.contains(where: isSkinToneModifier), piece.count > 1 {
                var rest = String.UnicodeScalarView()
                for scalar in piece {
                    if isSkinToneModifier(scalar), !rest.isEmpty {
                        parts.append(Character(String(rest)))
                        rest = String.UnicodeScalarView()
                    }
                    rest.append(scalar)
                }
                if !rest.isEmpty { parts.append(Character(String(rest))) }
            } else if let part = String(piece).first, String(piece).count == 1 {
                parts.append(part)
            } else {
                parts.append(contentsOf: String(piece))
            }
        }
        return parts.isEmpty ? [character] : parts
    }

    /// The width of `character` as a terminal described by `emojiWidths` draws it.
    public static func of(_ character: Character, emojiWidths: EmojiWidths) -> Int {
        let parts = drawnParts(of: character, emojiWidths: emojiWidths)
        if parts.count == 1 { return wholeWidth(of: parts[0], emojiWidths: emojiWidths) }
        return parts.reduce(0) { $0 + wholeWidth(of: $1, emojiWidths: emojiWidths) }
    }

    static func isSkinToneModifier(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F3FB...0x1F3FF).contains(scalar.value)
    }
}

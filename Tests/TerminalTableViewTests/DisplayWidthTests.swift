import TerminalTableView
import Testing

@Suite struct DisplayWidthTests {
    @Test(
        arguments: [
            ("a", 1), ("Z", 1), (" ", 1), ("é", 1), ("ø", 1), ("Ж", 1), ("東", 2), ("京", 2), ("한", 2), ("ア", 2),
            ("Ａ", 2), ("　", 2), ("😀", 2), ("🇩🇪", 2), ("❤️", 2), ("\u{1F44D}\u{1F3FD}", 2), ("\u{0007}", 0),
            ("\u{200B}", 0),
        ] as [(Character, Int)])
    func characterWidths(character: Character, width: Int) {
        #expect(DisplayWidth.of(character) == width)
    }

    @Test func combiningMarksTakeNoCells() {
        let decomposed = "Zoe\u{0308}"  // e + combining diaeresis: one grapheme
        #expect(decomposed.count == 3)
        #expect(DisplayWidth.of(decomposed) == 3)
        #expect(DisplayWidth.of("\u{0301}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{20DD}" as Unicode.Scalar) == 0)  // enclosing circle
    }

    @Test func stringWidths() {
        #expect(DisplayWidth.of("Andersson, 東京") == 15)
        #expect(DisplayWidth.of("Ærøskøbing, Zoë") == 15)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func prefixNeverSplitsAWideCharacter() {
        let (text, width) = DisplayWidth.prefix(of: "ab東京", fitting: 5)
        #expect(text == "ab東")
        #expect(width == 4)
        #expect(DisplayWidth.prefix(of: "東京", fitting: 1).text == "")
        #expect(DisplayWidth.prefix(of: "abc", fitting: 10).width == 3)
    }
}

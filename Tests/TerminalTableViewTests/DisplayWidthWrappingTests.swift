import Testing
import TerminalTableView

@Suite struct DisplayWidthWrappingTests {
    @Test func breaksAtSpacesWithinTheWidth() {
        #expect(DisplayWidth.wrapped("filter by words or a predicate", width: 12)
            == ["filter by", "words or a", "predicate"])
    }

    @Test func textThatFitsStaysOnOneLine() {
        #expect(DisplayWidth.wrapped("move the cursor", width: 15) == ["move the cursor"])
        #expect(DisplayWidth.wrapped("", width: 10) == [""])
    }

    @Test func aWordLongerThanALineIsSplit() {
        #expect(DisplayWidth.wrapped("a abcdefghij b", width: 4) == ["a", "abcd", "efgh", "ij b"])
    }

    @Test func wideCharactersCountTwoCells() {
        // Each ideograph is two cells: three fit in a six-cell line, never half of one.
        #expect(DisplayWidth.wrapped("東京都 大阪府", width: 6) == ["東京都", "大阪府"])
        #expect(DisplayWidth.wrapped("東京都大阪", width: 5) == ["東京", "都大", "阪"])
        #expect(DisplayWidth.wrapped("東", width: 1) == ["東"])
    }

    @Test(arguments: [1, 3, 7, 20])
    func everyLineFitsAndNoWordIsLost(width: Int) {
        let text = "undo your last add, edit or delete (nothing to undo) Ærøskøbing Đà Nẵng"
        let lines = DisplayWidth.wrapped(text, width: width)
        for line in lines { #expect(DisplayWidth.of(line) <= width, "\(line)") }
        #expect(lines.joined().filter { $0 != " " } == text.filter { $0 != " " })
    }
}

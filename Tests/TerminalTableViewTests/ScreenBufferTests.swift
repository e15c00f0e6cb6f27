import TerminalTableView
import Testing

@Suite struct ScreenBufferTests {
    @Test func writeReturnsColumnsUsedAndClipsByDisplayWidth() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 10, rows: 2))
        #expect(buffer.write("東京|END", at: 0, row: 0) == 8)
        #expect(buffer.write("ab東京", at: 0, row: 1, maxWidth: 5) == 4)  // 京 would straddle the limit
        #expect(buffer.lines == ["東京|END", "ab東"])
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[4, 1] == .blank)
    }

    @Test func wideCharacterNeverStraddlesTheRightEdge() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 5, rows: 1))
        #expect(buffer.write("abcd東", at: 0, row: 0) == 4)
        #expect(buffer.lines == ["abcd"])
        #expect(!buffer[4, 0].isContinuation)
    }

    @Test func combiningMarksJoinThePreviousCell() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 10, rows: 1))
        buffer.write("Zoe", at: 0, row: 0)
        // A lone combining mark written after the text attaches to the last character on screen.
        #expect(buffer.write("\u{0308}|", at: 3, row: 0) == 1)
        #expect(buffer.lines == ["Zoë|"])
        #expect(buffer[2, 0].character == "e\u{0308}")
        #expect(buffer.write("\u{0007}x", at: 5, row: 0) == 1)  // control characters are dropped
        #expect(buffer.lines == ["Zoë| x"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 6, rows: 2))
        buffer.write("東京", at: 0, row: 0)
        buffer.write("x", at: 1, row: 0)  // the right half of 東
        buffer.write("東京", at: 0, row: 1)
        buffer.write("y", at: 2, row: 1)  // the left half of 京
        #expect(buffer.lines == [" x京", "東y"])
        #expect(!buffer[3, 1].isContinuation)
    }

    @Test func outOfRangeWritesAreIgnored() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 3, rows: 1))
        #expect(buffer.write("abc", at: 0, row: 5) == 0)
        #expect(buffer.write("abc", at: -1, row: 0) == 3)
        #expect(buffer.lines == ["bc"])
        var empty = ScreenBuffer(size: .zero)
        empty.fill(empty.bounds, style: .reverse)
        #expect(empty.write("x", at: 0, row: 0) == 0)
        #expect(empty.lines == [])
    }

    @Test func annotatedLinesMarkStyledRuns() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 12, rows: 2))
        buffer.fill(TerminalRect(x: 0, y: 0, width: 8, height: 1), style: .reverse)
        buffer.write("▸ Ada", at: 0, row: 0, style: .reverse)
        buffer.write("東京", at: 2, row: 1, style: .foreground(.green))
        buffer.write("!", at: 7, row: 1, style: .bold)
        let legend: [Character: TextStyle] = ["r": .reverse, "g": .foreground(.green)]
        #expect(buffer.annotatedLines(legend: legend) == ["{r:▸ Ada   }", "  {g:東京} {?:!}"])
    }

    @Test func fillWithAWideCharacterKeepsTheGridConsistent() {
        var buffer = ScreenBuffer(size: TerminalSize(columns: 5, rows: 1))
        buffer.fill(buffer.bounds, character: "東")
        #expect(buffer.lines == ["東東"])
    }
}

import Foundation
import Testing

@testable import TerminalTableView

/// Wide characters, combining marks and emoji sequences: laid out as the terminal draws them, and
/// never cut in half by truncation.
@MainActor
@Suite struct GraphemeRenderingTests {
    /// The data source, kept alive here: tables hold theirs weakly.
    let data = ArrayDataSource([])

    func table(_ names: [String], width: Int) -> TableView {
        data.sections = [.init(title: nil, rows: names.map { [$0, "|"] })]
        let table = TableView(columns: [TableColumn("", width: .fixed(width)), TableColumn("", width: .fixed(1))])
        table.configuration.showsColumnHeaders = false
        table.dataSource = data
        return table
    }

    @Test(arguments: [
        // Each text truncated to 6 cells: at most 5 of text, then the ellipsis; a grapheme that does not
        // fit whole is left out.
        ("Zoe\u{0308}lle Martin", "Zoëll…"),
        ("東京都千代田", "東京…"),
        ("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", "👨‍👩‍👧👨‍👩‍👧…"),
        ("🇩🇪🇫🇷🇮🇹🇪🇸", "🇩🇪🇫🇷…"),
        ("a🇩🇪🇫🇷🇮🇹", "a🇩🇪🇫🇷…"),
        ("한국어한국어", "한국…"),
        ("e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}", "ééééé…"),
    ])
    func truncationKeepsGraphemesWhole(text: String, shown: String) throws {
        let lines = renderLines(table([text], width: 6), width: 12, height: 1)
        let line = try #require(lines.first)
        #expect(line.hasPrefix("▸ " + shown))
        // The second column always starts at the same cell.
        #expect(DisplayWidth.of(String(line.prefix { $0 != "|" })) == 2 + 6 + 2)
    }

    @Test func columnsStayAlignedWithMixedWidths() {
        let names = ["Ærøskøbing", "東京 太郎", "Zoe\u{0308}", "👍🏽 ok", "❤️ love"]
        let lines = renderLines(table(names, width: 10), width: 16, height: 5)
        for line in lines { #expect(DisplayWidth.of(String(line.prefix { $0 != "|" })) == 14, "\(line)") }
    }

    @Test func sequencesATerminalDrawsPieceByPieceTakeTheirCells() {
        let tmuxLike = EmojiWidths(measuredWidths: [1, 4, 2, 2])
        #expect(tmuxLike == EmojiWidths(presentationSequence: 1, combinesModifiers: false))
        DisplayWidth.$emojiWidthsOverride.withValue(tmuxLike) {
            #expect(DisplayWidth.of("❤️") == 1)
            #expect(DisplayWidth.of("\u{1F44D}\u{1F3FD}") == 4)
            #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
            var buffer = ScreenBuffer(size: TerminalSize(columns: 8, rows: 1))
            #expect(buffer.write("\u{1F44D}\u{1F3FD}❤️|", at: 0, row: 0) == 6)
            #expect(buffer[0, 0].character == "\u{1F44D}")
            #expect(buffer[2, 0].character == "\u{1F3FD}")
            #expect(buffer[4, 0].character == "❤️")
            #expect(buffer[5, 0].character == "|")
            // A split sequence is written whole or not at all.
            var narrow = ScreenBuffer(size: TerminalSize(columns: 3, rows: 1))
            #expect(narrow.write("\u{1F44D}\u{1F3FD}", at: 0, row: 0) == 0)
        }
    }

    @Test func drawnPartsFollowTheTerminal() {
        let family: Character = "👨‍👩‍👧"
        #expect(DisplayWidth.drawnParts(of: family, emojiWidths: .standard) == [family])
        #expect(
            DisplayWidth.drawnParts(of: family, emojiWidths: EmojiWidths(combinesJoinedSequences: false))
                == ["👨", "👩", "👧"])
        #expect(DisplayWidth.of(family, emojiWidths: EmojiWidths(combinesJoinedSequences: false)) == 6)
        #expect(DisplayWidth.drawnParts(of: "🇩🇪", emojiWidths: EmojiWidths(combinesFlags: false)).count == 2)
        #expect(DisplayWidth.drawnParts(of: "é", emojiWidths: EmojiWidths(combinesModifiers: false)) == ["é"])
        #expect(EmojiWidths(measuredWidths: []) == .standard)
        #expect(EmojiWidths(measuredWidths: [2, -1]) == .standard)
    }
}

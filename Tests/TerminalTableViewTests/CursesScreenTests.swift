import Foundation
import Testing

@testable import TerminalTableView

/// ncurses is one global state: these tests run one at a time, on `/dev/null`, with no TTY or TERM
/// needed.
@Suite(.serialized) struct CursesScreenTests {
    func openHeadless() throws -> CursesScreen {
        try CursesScreen(
            terminalType: "xterm-256color", inputPath: "/dev/null", outputPath: "/dev/null",
            installsFatalSignalHandlers: false)
    }

    @Test func drawsOnlyChangedCellsAndReadsBack() throws {
        let screen = try openHeadless()
        defer { screen.close() }
        screen.resize(to: TerminalSize(columns: 40, rows: 10))
        #expect(screen.size == TerminalSize(columns: 40, rows: 10))

        var frame = ScreenBuffer(size: screen.size)
        frame.write("Zoë 東京|", at: 2, row: 1, style: .foreground(.green))
        frame.write("Zoe\u{0308} bold", at: 0, row: 2, style: TextStyle(background: .brightBlue, bold: true))
        screen.present(frame)
        #expect(screen.textOfLine(1) == "  Zoë 東京|")
        #expect(screen.textOfLine(2) == "Zoë bold")

        frame.write("東", at: 0, row: 1)  // changes two cells
        screen.present(frame)
        #expect(screen.textOfLine(1) == "東Zoë 東京|")
    }

    @Test func unchangedCellsAreNotSentAgain() throws {
        let screen = try openHeadless()
        defer { screen.close() }
        screen.resize(to: TerminalSize(columns: 30, rows: 6))
        var frame = ScreenBuffer(size: screen.size)
        frame.write("Ada Lovelace", at: 0, row: 0, style: .bold)
        screen.present(frame)
        #expect(screen.cellsDrawnByLastPresent == 30 * 6)  // the first frame is drawn whole
        screen.present(frame)
        #expect(screen.cellsDrawnByLastPresent == 0)
        frame.write("Eve", at: 0, row: 0, style: .bold)  // "Ada" → "Eve"
        frame.write("東", at: 10, row: 3)  // one wide character: one cell sent
        screen.present(frame)
        #expect(screen.cellsDrawnByLastPresent == 4)
        #expect(screen.textOfLine(0) == "Eve Lovelace")
        #expect(screen.textOfLine(3) == "          東")
        screen.resize(to: TerminalSize(columns: 31, rows: 6))
        screen.present(ScreenBuffer(size: screen.size))
        #expect(screen.cellsDrawnByLastPresent == 31 * 6)  // a new size is drawn whole
    }

    @Test func sequencesNcursesCannotHoldInOneCellKeepTheColumns() throws {
        let screen = try openHeadless()
        defer { screen.close() }
        screen.resize(to: TerminalSize(columns: 20, rows: 2))
        var frame = ScreenBuffer(size: screen.size)
        frame.write("a👨‍👩‍👧b", at: 0, row: 0)
        screen.present(frame)
        // The first emoji stands for the sequence, and `b` stays in its column (1 + 2).
        let scalars = Array(screen.textOfLine(0).unicodeScalars)
        #expect(scalars.first == "a")
        #expect(scalars.dropFirst().first == "\u{1F468}")
        #expect(scalars.last == "b")
    }

    @Test func coloursAreReportedAndNoColorTurnsThemOff() throws {
        let screen = try openHeadless()
        defer { screen.close() }
        #expect(screen.supportsColors == (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true))
    }

    @Test func decodesKeys() throws {
        let screen = try openHeadless()
        defer { screen.close() }
        _ = screen.readEvents()
        // ncurses' push-back queue is last in, first out.
        for key in [Key.function(5), .enter, .character("ö"), .pageDown, .up].reversed() {
            screen.simulateKeyPress(key)
        }
        #expect(
            screen.readEvents() == [
                .key(.function(5)), .key(.enter), .key(.character("ö")), .key(.pageDown), .key(.up),
            ])
        #expect(screen.readEvents() == [])
    }

    @Test func closingTwiceIsHarmless() throws {
        let screen = try openHeadless()
        screen.close()
        screen.close()
        #expect(screen.size == .zero)
        #expect(screen.readEvents() == [])
    }

    @Test func unknownTerminalTypeIsAnErrorNotAnExit() {
        #expect(throws: CursesScreenError.unknownTerminal(type: "no-such-terminal-type")) {
            try CursesScreen(
                terminalType: "no-such-terminal-type", inputPath: "/dev/null", outputPath: "/dev/null",
                installsFatalSignalHandlers: false)
        }
    }
}

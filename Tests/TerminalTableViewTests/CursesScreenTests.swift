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

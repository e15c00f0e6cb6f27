import TerminalTableView
import Testing

@Suite struct TestScreenTests {
    @Test func scriptedEventsAreDrainedInOrder() {
        let screen = TestScreen(size: TerminalSize(columns: 20, rows: 5))
        screen.enqueue(keys: .down, .pageDown)
        screen.type("q")
        screen.resize(to: TerminalSize(columns: 30, rows: 6))
        #expect(
            screen.readEvents() == [
                .key(.down), .key(.pageDown), .key(.character("q")), .resize(TerminalSize(columns: 30, rows: 6)),
            ])
        #expect(screen.readEvents().isEmpty)
        #expect(screen.size == TerminalSize(columns: 30, rows: 6))
    }

    @Test func presentedFramesAreRecorded() {
        let screen = TestScreen(size: TerminalSize(columns: 10, rows: 1))
        #expect(screen.lastFrame == nil)
        var frame = ScreenBuffer(size: screen.size)
        frame.write("one", at: 0, row: 0)
        screen.present(frame)
        frame.write("two", at: 0, row: 0)
        screen.present(frame)
        #expect(screen.presentedFrames.map(\.lines) == [["one"], ["two"]])
        #expect(screen.lastFrame?.lines == ["two"])
    }

    @Test func manualTimeSourceMovesOnlyWhenAdvanced() {
        let clock = ManualTimeSource()
        let start = clock.now
        #expect(clock.now == start)
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now - start == .milliseconds(1500))
    }
}

/// An in-memory ``TerminalScreen`` for tests: scripted input, recorded output.
///
/// It plays the role NIO's `EmbeddedChannel` plays for channel handlers: the code under test sees an
/// ordinary screen, while the test decides what the user types and reads back every frame that was
/// presented, without a terminal and without sleeping.
///
///     let screen = TestScreen(size: TerminalSize(columns: 40, rows: 10))
///     screen.enqueue(.key(.down), .key(.character("q")))
///     app.run(on: screen)
///     #expect(screen.lastFrame?.lines.first == " People")
public final class TestScreen: TerminalScreen {
    /// The screen size the code under test sees. Prefer ``resize(to:)`` to also queue the event a real
    /// terminal would send.
    public var size: TerminalSize
    /// Every frame presented so far, oldest first.
    public private(set) var presentedFrames: [ScreenBuffer] = []
    /// Events not yet read, oldest first.
    public private(set) var pendingEvents: [TerminalEvent] = []
    /// Whether the screen pretends to show colours; set it to false to test the monochrome look.
    public var supportsColors = true

    /// Creates a screen of `size` with no pending input.
    public init(size: TerminalSize = TerminalSize(columns: 80, rows: 24)) {
        self.size = size
    }

    /// The most recently presented frame.
    public var lastFrame: ScreenBuffer? { presentedFrames.last }

    /// Records `buffer` as presented.
    public func present(_ buffer: ScreenBuffer) {
        presentedFrames.append(buffer)
    }

    /// Returns and removes every queued event.
    public func readEvents() -> [TerminalEvent] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }

    /// Queues events for the next ``readEvents()``.
    public func enqueue(_ events: TerminalEvent...) {
        pendingEvents.append(contentsOf: events)
    }

    /// Queues a key press for each key.
    public func enqueue(keys: Key...) {
        pendingEvents.append(contentsOf: keys.map(TerminalEvent.key))
    }

    /// Queues the characters of `text` as key presses, as if the user typed it.
    public func type(_ text: String) {
        pendingEvents.append(contentsOf: text.map { .key(.character($0)) })
    }

    /// Queues a click at a cell.
    public func click(column: Int, row: Int) {
        pendingEvents.append(.mouse(MouseEvent(.press, column: column, row: row)))
    }

    /// Changes the size and queues the `.resize` event a terminal sends when its window changes.
    public func resize(to newSize: TerminalSize) {
        size = newSize
        pendingEvents.append(.resize(newSize))
    }

    /// Forgets the recorded frames (keeps the pending input).
    public func clearPresentedFrames() {
        presentedFrames.removeAll()
    }
}

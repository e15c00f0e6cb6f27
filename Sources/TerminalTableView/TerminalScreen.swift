/// A terminal to draw frames on and read input from.
///
/// The app talks to this protocol only, so that it runs the same on a real terminal
/// (``CursesScreen``) and in tests (``TestScreen``). Screens are not `Sendable`: a terminal is one
/// piece of global state, used from one thread (the main queue).
public protocol TerminalScreen: AnyObject {
    /// The current size of the screen.
    var size: TerminalSize { get }

    /// Whether the screen shows colours. On a monochrome screen colours are dropped when drawing, so
    /// views should mark things with attributes (bold, underline, reverse) instead.
    var supportsColors: Bool { get }

    /// Shows `buffer` as the next frame. Cells outside the screen are ignored; a buffer smaller than
    /// the screen leaves the rest blank.
    func present(_ buffer: ScreenBuffer)

    /// Returns every event that is waiting, oldest first, without blocking; empty when there is none.
    func readEvents() -> [TerminalEvent]
}

extension TerminalScreen {
    /// Screens show colours unless they say otherwise.
    public var supportsColors: Bool { true }
}

/// One of the terminal's named colours.
///
/// The sixteen ANSI colours are what every terminal has; `default` is whatever the user's terminal
/// theme uses, which keeps the app readable on light and dark backgrounds alike.
public enum TerminalColor: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The terminal's own foreground or background colour.
    case `default`
    case black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, brightWhite

    /// The ANSI colour number (0–15), or nil for `default`.
    public var ansiIndex: Int? {
        switch self {
        case .default: nil
        case .black: 0
        case .red: 1
        case .green: 2
        case .yellow: 3
        case .blue: 4
        case .magenta: 5
        case .cyan: 6
        case .white: 7
        case .brightBlack: 8
        case .brightRed: 9
        case .brightGreen: 10
        case .brightYellow: 11
        case .brightBlue: 12
        case .brightMagenta: 13
        case .brightCyan: 14
        case .brightWhite: 15
        }
    }

    public var description: String {
        switch self {
        case .default: "default"
        case .black: "black"
        case .red: "red"
        case .green: "green"
        case .yellow: "yellow"
        case .blue: "blue"
        case .magenta: "magenta"
        case .cyan: "cyan"
        case .white: "white"
        case .brightBlack: "brightBlack"
        case .brightRed: "brightRed"
        case .brightGreen: "brightGreen"
        case .brightYellow: "brightYellow"
        case .brightBlue: "brightBlue"
        case .brightMagenta: "brightMagenta"
        case .brightCyan: "brightCyan"
        case .brightWhite: "brightWhite"
        }
    }
}

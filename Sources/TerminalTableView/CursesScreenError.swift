/// Why a ``CursesScreen`` could not be opened.
public enum CursesScreenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// ncurses has no terminal description for this terminal type (the `TERM` variable), or the
    /// terminal could not be set up. ncurses' `initscr` would print a message and exit the process;
    /// the screen reports it instead, so the app can explain and exit cleanly.
    case unknownTerminal(type: String)
    /// A file given for the terminal's input or output could not be opened.
    case cannotOpen(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unknownTerminal(let type):
            "Cannot open the terminal: ncurses does not know the terminal type \"\(type)\". "
                + "Set TERM to a known type, for example xterm-256color."
        case .cannotOpen(let path, let errno):
            "Cannot open \(path) for the terminal (errno \(errno))."
        }
    }
}

/// Something that happened at the terminal: a key press or a change of size.
public enum TerminalEvent: Sendable, Hashable, CustomStringConvertible {
    /// The user pressed a key.
    case key(Key)
    /// The terminal now has this size; the next frame should be laid out for it.
    case resize(TerminalSize)

    public var description: String {
        switch self {
        case .key(let key): "key(\(key))"
        case .resize(let size): "resize(\(size))"
        }
    }
}

/// Something that happened at the terminal: a key press, a mouse action or a change of size.
public enum TerminalEvent: Sendable, Hashable, CustomStringConvertible {
    /// The user pressed a key.
    case key(Key)
    /// The user clicked or turned the wheel (only on terminals that report the mouse).
    case mouse(MouseEvent)
    /// The terminal now has this size; the next frame should be laid out for it.
    case resize(TerminalSize)

    public var description: String {
        switch self {
        case .key(let key): "key(\(key))"
        case .mouse(let event): "mouse(\(event))"
        case .resize(let size): "resize(\(size))"
        }
    }
}

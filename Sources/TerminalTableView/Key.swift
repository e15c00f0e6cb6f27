/// A key the user pressed, decoded from the terminal's escape sequences.
public enum Key: Sendable, Hashable, CustomStringConvertible {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab, delete
    /// A printable character (letters, digits, punctuation, space, any Unicode text).
    case character(Character)
    /// A function key: `function(1)` is F1.
    case function(Int)

    public var description: String {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .pageUp: "pageUp"
        case .pageDown: "pageDown"
        case .home: "home"
        case .end: "end"
        case .enter: "enter"
        case .escape: "escape"
        case .backspace: "backspace"
        case .tab: "tab"
        case .delete: "delete"
        case .character(let character): "character(\(character.debugDescription))"
        case .function(let number): "F\(number)"
        }
    }
}

import CCursesShim
import CNCurses

/// Decoding input: ncurses key codes, characters and mouse reports into ``TerminalEvent``s.
extension CursesScreen {
    static func readMouseEvent() -> MouseEvent? {
        var column: Int32 = 0
        var row: Int32 = 0
        var kind: Int32 = 0
        guard cs_read_mouse(&column, &row, &kind) == 0 else { return nil }
        switch kind {
        case 1: return MouseEvent(.press, column: Int(column), row: Int(row))
        case 2: return MouseEvent(.scrollUp, column: Int(column), row: Int(row))
        case 3: return MouseEvent(.scrollDown, column: Int(column), row: Int(row))
        default: return nil
        }
    }

    static let keyCodes: [(code: Int32, key: Key)] = {
        var table: [(Int32, Key)] = [
            (KEY_UP, .up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
            (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown), (KEY_HOME, .home), (KEY_END, .end),
            (KEY_ENTER, .enter), (KEY_BACKSPACE, .backspace), (KEY_DC, .delete),
        ]
        for number in 1...24 { table.append((cs_key_f(Int32(number)), .function(number))) }
        return table
    }()

    static func key(forKeyCode code: Int32) -> Key? {
        keyCodes.first { $0.code == code }?.key
    }

    static func key(forCharacter value: wint_t) -> Key? {
        switch value {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        default:
            guard value >= 32, let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }

}

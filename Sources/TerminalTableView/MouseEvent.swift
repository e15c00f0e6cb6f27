/// A mouse action at a cell of the screen.
public struct MouseEvent: Sendable, Hashable, CustomStringConvertible {
    /// What the mouse did.
    public enum Kind: Sendable, Hashable {
        /// The main button went down (a click).
        case press
        /// The wheel turned up (away from the user).
        case scrollUp
        /// The wheel turned down.
        case scrollDown
    }

    /// What happened.
    public var kind: Kind
    /// The column of the cell under the pointer, counted from zero.
    public var column: Int
    /// The line of the cell under the pointer, counted from zero.
    public var row: Int

    /// Creates a mouse event.
    public init(_ kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }

    /// `press at (3,7)`.
    public var description: String { "\(kind) at (\(column),\(row))" }
}

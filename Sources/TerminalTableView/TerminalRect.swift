/// A rectangle of cells on a screen: where a view draws.
///
/// `x` and `y` are the column and line of the top-left cell, counted from zero.
public struct TerminalRect: Sendable, Hashable, CustomStringConvertible {
    /// The column of the leftmost cell.
    public var x: Int
    /// The line of the topmost cell.
    public var y: Int
    /// The width and height.
    public var size: TerminalSize

    /// Creates a rectangle at `(x, y)` with the given size.
    public init(x: Int, y: Int, size: TerminalSize) {
        self.x = x
        self.y = y
        self.size = size
    }

    /// Creates a rectangle at `(x, y)` that is `width` cells wide and `height` lines tall.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(x: x, y: y, size: TerminalSize(columns: width, rows: height))
    }

    /// The rectangle at the origin that covers a whole screen of `size`.
    public init(size: TerminalSize) {
        self.init(x: 0, y: 0, size: size)
    }

    /// The width in cells.
    public var width: Int { size.columns }
    /// The height in lines.
    public var height: Int { size.rows }
    /// One past the rightmost column.
    public var maxX: Int { x + width }
    /// One past the bottom line.
    public var maxY: Int { y + height }
    /// True when the rectangle holds no cells.
    public var isEmpty: Bool { size.isEmpty }

    /// The part of the rectangle that also lies in `other` (empty when they do not overlap).
    public func intersection(_ other: TerminalRect) -> TerminalRect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        return TerminalRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// `(x,y) WxH`.
    public var description: String { "(\(x),\(y)) \(size)" }
}

extension TerminalRect {
    /// Whether the cell at `column`, `row` lies inside the rectangle.
    public func contains(column: Int, row: Int) -> Bool {
        column >= x && column < maxX && row >= y && row < maxY
    }
}

/// The size of a terminal or of a region of it, in character cells.
///
/// Columns count display cells, not characters: a CJK ideograph takes two.
public struct TerminalSize: Sendable, Hashable, CustomStringConvertible {
    /// The width in cells.
    public var columns: Int
    /// The height in lines.
    public var rows: Int

    /// Creates a size; negative values are treated as zero so that a bad report from the terminal
    /// can never produce a negative-sized buffer.
    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// A size with no cells.
    public static let zero = TerminalSize(columns: 0, rows: 0)

    /// True when the size holds no cells.
    public var isEmpty: Bool { columns == 0 || rows == 0 }

    /// `80x24` style: columns, then rows.
    public var description: String { "\(columns)x\(rows)" }
}

/// The content of one row: a text per column, and optionally a style for the whole row.
///
/// Cells are values made on demand for the rows on screen; there is no reuse queue to manage.
public struct TableViewCell: Sendable, Hashable {
    /// One text per column of the table, in column order. Missing texts draw as empty, extra ones
    /// are ignored (when the table has no columns, the texts share the width equally).
    public var columns: [String]
    /// The row's style; nil uses the terminal's plain style. Highlights and the selection are drawn
    /// on top of it.
    public var style: TextStyle?

    /// Creates a cell from column texts.
    public init(columns: [String], style: TextStyle? = nil) {
        self.columns = columns
        self.style = style
    }

    /// Creates a cell from column texts given inline: `TableViewCell("Ada", "Berlin")`.
    public init(_ columns: String..., style: TextStyle? = nil) {
        self.init(columns: columns, style: style)
    }
}

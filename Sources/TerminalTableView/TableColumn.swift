/// A column of a ``TableView``: its title (drawn in the column-header line), width and alignment.
public struct TableColumn: Sendable, Hashable {
    /// How wide a column is.
    public enum Width: Sendable, Hashable {
        /// Exactly this many cells.
        case fixed(Int)
        /// A share of the width the fixed columns leave, at least `minimum` cells. Flexible columns
        /// share the rest in proportion to their `weight`.
        case flexible(minimum: Int = 0, weight: Int = 1)
    }

    /// Where text sits inside its column.
    public enum Alignment: Sendable, Hashable {
        case leading, center, trailing
    }

    /// The title drawn above the column; may be empty.
    public var title: String
    /// The width rule.
    public var width: Width
    /// The alignment of the title and the cells' text.
    public var alignment: Alignment

    /// Creates a column.
    public init(_ title: String, width: Width = .flexible(), alignment: Alignment = .leading) {
        self.title = title
        self.width = width
        self.alignment = alignment
    }
}

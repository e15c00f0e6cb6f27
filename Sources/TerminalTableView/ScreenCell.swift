/// One cell of a screen: a character and its style.
///
/// A wide character (a CJK ideograph, most emoji) covers two cells: the first holds the character, the
/// second is a *continuation* cell that holds nothing of its own. Combining marks never get a cell;
/// they belong to the character before them (a `Character` is a whole grapheme cluster).
public struct ScreenCell: Sendable, Hashable {
    /// The grapheme shown in the cell; a space for blank and continuation cells.
    public var character: Character
    /// The colours and attributes.
    public var style: TextStyle
    /// True for the right half of a wide character.
    public var isContinuation: Bool

    /// Creates a cell showing `character`.
    public init(_ character: Character = " ", style: TextStyle = .plain) {
        self.character = character
        self.style = style
        self.isContinuation = false
    }

    /// The right half of a wide character drawn with `style`.
    public static func continuation(style: TextStyle) -> ScreenCell {
        var cell = ScreenCell(" ", style: style)
        cell.isContinuation = true
        return cell
    }

    /// An empty cell in the default style.
    public static let blank = ScreenCell()
}

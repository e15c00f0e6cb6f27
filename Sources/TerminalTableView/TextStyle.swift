/// How the text in a cell looks: colours and attributes.
///
/// A value type so that a buffer can compare frames cell by cell and a screen can send only what
/// changed.
public struct TextStyle: Sendable, Hashable, CustomStringConvertible {
    /// The text colour.
    public var foreground: TerminalColor
    /// The cell's background colour.
    public var background: TerminalColor
    /// Heavier text.
    public var bold: Bool
    /// Fainter text.
    public var dim: Bool
    /// Foreground and background swapped (the selection bar).
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool

    /// Creates a style; every part defaults to the terminal's plain text.
    public init(
        foreground: TerminalColor = .default, background: TerminalColor = .default,
        bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// The terminal's default look.
    public static let plain = TextStyle()
    /// Bold text.
    public static let bold = TextStyle(bold: true)
    /// Dim text.
    public static let dim = TextStyle(dim: true)
    /// Reverse video.
    public static let reverse = TextStyle(reverse: true)
    /// Underlined text.
    public static let underline = TextStyle(underline: true)

    /// A plain style with the given text colour.
    public static func foreground(_ color: TerminalColor) -> TextStyle {
        TextStyle(foreground: color)
    }

    /// This style with `overlay` laid on top: the overlay's non-default colours win, and its attributes
    /// are added to this style's. Used to combine a cell's own style with flash and selection styles.
    public func applying(_ overlay: TextStyle) -> TextStyle {
        TextStyle(
            foreground: overlay.foreground == .default ? foreground : overlay.foreground,
            background: overlay.background == .default ? background : overlay.background,
            bold: bold || overlay.bold, dim: dim || overlay.dim,
            reverse: reverse || overlay.reverse, underline: underline || overlay.underline)
    }

    /// A compact summary such as `green on default, bold, reverse`.
    public var description: String {
        var parts = ["\(foreground) on \(background)"]
        if bold { parts.append("bold") }
        if dim { parts.append("dim") }
        if reverse { parts.append("reverse") }
        if underline { parts.append("underline") }
        return parts.joined(separator: ", ")
    }
}

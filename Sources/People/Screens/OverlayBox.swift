import TerminalTableView

/// A framed box drawn over the list: the form, the detail view and the help.
enum OverlayBox {
    /// Clears `rect` and frames it with a title in the top border: `┌ Title ─────┐`.
    static func draw(title: String, into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        buffer.fill(rect)
        let horizontal = String(repeating: "─", count: rect.width - 2)
        buffer.write("┌" + horizontal + "┐", at: rect.x, row: rect.y)
        buffer.write("└" + horizontal + "┘", at: rect.x, row: rect.maxY - 1)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            buffer.write("│", at: rect.x, row: y)
            buffer.write("│", at: rect.maxX - 1, row: y)
        }
        buffer.write(" \(title) ", at: rect.x + 2, row: rect.y, style: .bold, maxWidth: max(0, rect.width - 4))
    }
}

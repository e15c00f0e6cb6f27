extension TableView {
    /// What the table does when a batch of updates breaks UIKit's rules.
    public enum InvalidUpdatePolicy: Sendable, Hashable {
        /// Stop the program with the rule and both counts in the message, as UIKit does: the data
        /// source and the updates disagree, which is a bug in the caller.
        case trap
        /// Recover by reloading everything from the data source (what `UICollectionView` does in
        /// release builds); the rows lose their highlights but the program keeps running.
        case reloadData
    }

    /// Where `scrollToRow(at:position:)` puts a row.
    public enum ScrollPosition: Sendable, Hashable {
        /// Scroll as little as possible to make the row visible (not at all if it is).
        case nearest
        /// Put the row on the first content line.
        case top
        /// Put the row in the middle of the view.
        case middle
        /// Put the row on the last line.
        case bottom
    }

    /// How a table looks and behaves; every part has a sensible default.
    public struct Configuration: Sendable, Hashable {
        /// How long inserted, updated and moved rows stay highlighted. Zero turns highlights off.
        public var flashDuration: Duration = .seconds(1)
        /// The style laid over a highlighted row, per kind of change.
        public var flashStyles: [RowFlash: TextStyle] = [
            .inserted: .foreground(.green), .updated: .foreground(.yellow), .moved: .foreground(.cyan),
        ]
        /// The style laid over a highlighted row when the screen has no colours (see ``usesColors``):
        /// attributes only, one look per kind of change.
        public var monochromeFlashStyles: [RowFlash: TextStyle] = [
            .inserted: .bold, .updated: .underline, .moved: TextStyle(bold: true, underline: true),
        ]
        /// Whether the screen shows colours. When false, highlights use ``monochromeFlashStyles``; set it
        /// from ``TerminalScreen/supportsColors``.
        public var usesColors = true
        /// What happens when a batch of updates breaks the rules.
        public var invalidUpdatePolicy: InvalidUpdatePolicy = .trap
        /// Draw a line of column titles above the rows (when any column has a title).
        public var showsColumnHeaders = true
        /// Keep the header of the section at the top pinned on the first content line.
        public var pinsSectionHeaders = true
        /// Keep a row selected whenever there is one (a terminal list always shows its cursor).
        public var keepsRowSelected = true
        /// Cells between two columns.
        public var columnSpacing = 2
        /// The marker drawn left of the selected row.
        public var selectionMarker: Character = "▸"
        /// The style laid over the selected row.
        public var selectionStyle: TextStyle = .reverse
        /// The style of section header lines.
        public var sectionHeaderStyle: TextStyle = .bold
        /// The style of the column-title line.
        public var columnHeaderStyle: TextStyle = .underline
        /// The style of the section index titles.
        public var sectionIndexStyle: TextStyle = .plain
        /// The style of the section index title of the section at the top of the view.
        public var currentSectionIndexStyle: TextStyle = .bold

        /// The default configuration.
        public init() {}
    }
}

import Foundation
import SectionedChanges

/// A UITableView-like list for terminals: sections with header lines, columns, a section index down
/// the right edge, a selected row, and batch updates checked against UIKit's rules.
///
/// The table knows nothing of where its data comes from: it speaks index paths to a
/// ``TableViewDataSource`` and tells a ``TableViewDelegate`` about selection. It draws into a
/// ``ScreenBuffer`` with ``render(into:in:)``, asking for cells only for the rows on screen, so it
/// handles sections of any size.
///
/// Live changes arrive as batches, as with UIKit:
///
///     tableView.beginUpdates()
///     tableView.insertRows(at: [IndexPath(row: 0, section: 2)])
///     tableView.deleteRows(at: [IndexPath(row: 7, section: 0)])
///     tableView.endUpdates()   // checks the counts, then remaps selection and scrolling
///
/// After a valid batch the selected row stays on the same item, and when rows arrive above it the view
/// scrolls so that it stays on the same screen line. Inserted, reloaded and moved rows are highlighted
/// for ``Configuration-swift.struct/flashDuration`` — those on the screen or within a screen's height
/// (at least 64 lines) of it; rows changed farther away are not highlighted when scrolled to later. A
/// batch costs time in proportion to its changes and the number of sections, never to the number of rows.
@MainActor
public final class TableView {
    /// The source of the content. Setting it reloads the table.
    public weak var dataSource: (any TableViewDataSource)? {
        didSet { reloadData() }
    }

    /// Hears about selection changes and activated rows.
    public weak var delegate: (any TableViewDelegate)?

    /// Looks and behaviour; changes show on the next render.
    public var configuration: Configuration

    /// The columns the cells' texts are laid out in, and their titles.
    public var columns: [TableColumn]

    /// The clock that highlights expire by.
    public let timeSource: any TimeSource

    /// The cached section shape: the "before" state of the next batch.
    var layout = SectionLayout()
    /// The header title of each section, cached with the layout.
    var headerTitles: [String?] = []
    /// The selected row.
    var selection: IndexPath?
    /// The content line shown first (the scroll offset).
    var topLine = 0
    /// Content lines available in the last render (0 before the first).
    var viewportHeight = 0
    /// Make the selection visible at the next render (after a resize or before the first render).
    var needsSelectionVisible = true
    /// The batch being recorded and how deeply `beginUpdates()` is nested.
    var pending = PendingBatchUpdate()
    var updateDepth = 0
    /// Highlighted rows and sections.
    var flashes = RowFlashState()
    /// Where the last render drew the rows and the section index, for mouse events.
    var renderedContentRect: TerminalRect?
    var renderedIndexRect: TerminalRect?

    /// Creates an empty table; set ``dataSource`` to fill it.
    public init(
        configuration: Configuration = Configuration(), columns: [TableColumn] = [],
        timeSource: any TimeSource = SystemTimeSource()
    ) {
        self.configuration = configuration
        self.columns = columns
        self.timeSource = timeSource
    }

    // MARK: - Shape

    /// The number of sections, as of the last reload or batch.
    public var numberOfSections: Int { layout.sectionCount }

    /// The number of rows in `section`, as of the last reload or batch (0 outside the table).
    public func numberOfRows(inSection section: Int) -> Int {
        section >= 0 && section < layout.sectionCount ? layout.rowCounts[section] : 0
    }

    /// The number of rows in all sections.
    public var numberOfRows: Int { layout.totalRows }

    // MARK: - Reloading

    /// Reads every section's row count and header title from the data source now, forgets all
    /// highlights, and keeps the selection and scroll position where they still fit.
    ///
    /// Counts are read eagerly, not at drawing time, because they are the "before" state that the next
    /// batch of updates is checked against. Calling this inside a batch drops what the batch recorded.
    public func reloadData() {
        pending = PendingBatchUpdate()
        let shape = readShape()
        layout = SectionLayout(rowCounts: shape.rowCounts, hasHeader: shape.titles.map { $0 != nil })
        headerTitles = shape.titles
        flashes.removeAll()
        let previous = selection
        if let previous {
            selection = layout.nearestRow(section: previous.section, row: previous.row)
        } else if configuration.keepsRowSelected {
            selection = layout.indexPath(atAbsoluteRow: 0)
        }
        topLine = clampedTopLine(topLine)
        needsSelectionVisible = true
        if selection != previous { delegate?.tableViewSelectionDidChange(self) }
    }

    /// Row counts and header titles as the data source reports them now: O(sections) calls.
    func readShape() -> (rowCounts: [Int], titles: [String?]) {
        guard let dataSource else { return ([], []) }
        let sectionCount = max(0, dataSource.numberOfSections(in: self))
        var rowCounts: [Int] = []
        var titles: [String?] = []
        rowCounts.reserveCapacity(sectionCount)
        titles.reserveCapacity(sectionCount)
        for section in 0..<sectionCount {
            rowCounts.append(max(0, dataSource.tableView(self, numberOfRowsInSection: section)))
            titles.append(dataSource.tableView(self, titleForHeaderInSection: section))
        }
        return (rowCounts, titles)
    }

    // MARK: - Highlights

    /// The highlight the row at `indexPath` shows now, if any.
    public func flash(forRowAt indexPath: IndexPath) -> RowFlash? {
        flashes.flash(at: indexPath, now: timeSource.now)
    }

    /// The content lines whose rows keep and get highlights: the screen, and as much again (at least
    /// ``highlightMargin`` lines) above and below it, so that rows scrolled to soon after still show theirs.
    var linesKeepingHighlights: Range<Int> {
        let margin = max(viewportHeight, Self.highlightMargin)
        return max(0, topLine - margin)..<(topLine + viewportHeight + margin)
    }

    /// The fewest lines above and below the screen whose rows are highlighted (also before the first
    /// drawing, when the screen's height is not known yet).
    static let highlightMargin = 64

    /// When the next highlight ends, so a run loop can sleep until exactly then and redraw; nil when
    /// nothing is highlighted. Reading it also forgets highlights that have already ended.
    public var nextRedrawDeadline: ContinuousClock.Instant? {
        let now = timeSource.now
        flashes.purge(now: now)
        return flashes.nextDeadline(after: now)
    }
}

import Foundation
import SectionedChanges

/// The scrolling model.
///
/// `topLine` is the first content line shown. When that line is a row of a section with a header,
/// the header is pinned on the first screen line and the rows follow it, so the screen shows
/// `viewportHeight - 1` content lines. All of this is O(log sections) per question.
extension TableView {
    /// Scrolls so that the row at `indexPath` is visible at `position`. Invalid index paths are ignored.
    public func scrollToRow(at indexPath: IndexPath, position: ScrollPosition = .nearest) {
        guard layout.contains(indexPath) else { return }
        scroll(toLine: layout.line(of: indexPath), position: position)
        needsSelectionVisible = false
    }

    /// The rows on screen as of the last render, top to bottom.
    public var indexPathsForVisibleRows: [IndexPath] {
        guard viewportHeight > 0 else { return [] }
        var rows: [IndexPath] = []
        var line = topLine
        var screenLine = pinnedHeaderOffset(forTopLine: topLine)
        while screenLine < viewportHeight, let content = layout.content(atLine: line) {
            if case .row(let indexPath) = content { rows.append(indexPath) }
            line += 1
            screenLine += 1
        }
        return rows
    }

    func scroll(toLine line: Int, position: ScrollPosition) {
        guard viewportHeight > 0 else {
            topLine = clampedTopLine(line)
            return
        }
        switch position {
        case .nearest:
            if let screenLine = screenLine(ofContentLine: line), screenLine < viewportHeight { return }
            topLine = topLine(placing: line, atScreenLine: line < topLine ? 0 : viewportHeight - 1)
        case .top:
            topLine = topLine(placing: line, atScreenLine: 0)
        case .middle:
            topLine = topLine(placing: line, atScreenLine: (viewportHeight - 1) / 2)
        case .bottom:
            topLine = topLine(placing: line, atScreenLine: viewportHeight - 1)
        }
    }

    /// 1 when a header is pinned above the rows for this top line, else 0.
    func pinnedHeaderOffset(forTopLine line: Int) -> Int {
        guard configuration.pinsSectionHeaders, viewportHeight >= 2,
            case .row(let indexPath) = layout.content(atLine: line), layout.sectionHasHeader(indexPath.section)
        else { return 0 }
        return 1
    }

    /// Where content `line` is on screen (0 is the first content line), or nil above the view.
    /// The result may be past the bottom.
    func screenLine(ofContentLine line: Int) -> Int? {
        guard line >= topLine else { return nil }
        let position = line - topLine + pinnedHeaderOffset(forTopLine: topLine)
        return viewportHeight > 0 && position >= viewportHeight ? nil : position
    }

    /// The top line that shows content `line` on screen line `target`, as nearly as the pinned header
    /// allows, clamped to the content.
    func topLine(placing line: Int, atScreenLine target: Int) -> Int {
        let height = viewportHeight
        let target = min(max(0, target), max(0, height - 1))
        let exact = line - target
        if pinnedHeaderOffset(forTopLine: exact) == 0 { return clampedTopLine(exact) }
        // A pinned header takes the first line, so start one line later.
        let later = exact + 1
        if later <= line, pinnedHeaderOffset(forTopLine: later) == 1 { return clampedTopLine(later) }
        // No exact fit (the line before is the next section's header): be one line off, on screen.
        if target + 1 < height || later > line { return clampedTopLine(exact) }
        return clampedTopLine(later)
    }

    /// `line` limited so that the view never scrolls before the first line or past the point where
    /// the last line sits on the last screen line. A row 0 under its pinned header becomes the header
    /// itself, which shows the same lines.
    func clampedTopLine(_ line: Int) -> Int {
        let total = layout.totalLines
        guard total > 0 else { return 0 }
        var maximum = total - 1
        if viewportHeight > 0 {
            let fill = max(0, total - viewportHeight)
            maximum = min(total - 1, fill + pinnedHeaderOffset(forTopLine: fill))
        }
        let clamped = min(max(0, line), maximum)
        if pinnedHeaderOffset(forTopLine: clamped) == 1, case .row(let indexPath) = layout.content(atLine: clamped),
            indexPath.row == 0
        {
            return clamped - 1
        }
        return clamped
    }

    /// Called by rendering with the content height of the frame.
    func updateViewport(height: Int) {
        if height != viewportHeight {
            viewportHeight = height
            needsSelectionVisible = true
        }
        topLine = clampedTopLine(topLine)
        if needsSelectionVisible, let selection, layout.contains(selection) {
            scroll(toLine: layout.line(of: selection), position: .nearest)
        }
        needsSelectionVisible = false
    }
}

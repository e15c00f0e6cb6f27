import Foundation
import SectionedChanges

extension TableView {
    /// Draws the table into `rect` of `buffer`.
    ///
    /// From the top: a line of column titles (when any column has one), then the content with the
    /// header of the section at the top pinned on the first line. Section headers read
    /// ` A ───── 3,412 ──` (title, rule, the data source's detail text); rows are indented two cells,
    /// the selected one marked and drawn in the selection style. The section index runs down the right
    /// edge and rows never draw over it. Only the rows on screen are asked for.
    ///
    /// Rendering also fits the scroll position to the rect's height: after a resize the selection is
    /// brought back into view.
    public func render(into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        let area = rect.intersection(buffer.bounds)
        guard !area.isEmpty else { return }
        // Every cell of the area is drawn exactly once: title line, then content lines (rows and headers
        // fill their own line, lines past the end are cleared), then the index column.

        let indexTitles = dataSource?.sectionIndexTitles(for: self) ?? []
        let indexWidth = sectionIndexWidth(titles: indexTitles, availableWidth: area.width)
        let contentWidth = area.width - indexWidth
        var contentTop = area.y
        if configuration.showsColumnHeaders, area.height >= 2, columns.contains(where: { !$0.title.isEmpty }) {
            drawColumnTitles(into: &buffer, x: area.x, y: contentTop, width: contentWidth)
            if indexWidth > 0 { buffer.fill(TerminalRect(x: area.x + contentWidth, y: contentTop, width: indexWidth, height: 1)) }
            contentTop += 1
        }
        let content = TerminalRect(x: area.x, y: contentTop, width: contentWidth, height: area.maxY - contentTop)
        updateViewport(height: content.height)
        drawContent(into: &buffer, in: content)
        renderedContentRect = content
        renderedIndexRect = nil
        if indexWidth > 0 {
            let index = TerminalRect(x: area.x + contentWidth, y: content.y, width: indexWidth, height: content.height)
            buffer.fill(index)
            drawSectionIndex(indexTitles, into: &buffer, in: index)
            renderedIndexRect = index
        }
    }

    // MARK: - Content

    private func drawContent(into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        let now = timeSource.now
        var layouts: [Int: ColumnLayout] = [:]
        var y = rect.y
        if pinnedHeaderOffset(forTopLine: topLine) == 1, let section = layout.section(atLine: topLine) {
            drawHeader(section: section, into: &buffer, x: rect.x, y: y, width: rect.width)
            y += 1
        }
        var line = topLine
        while y < rect.maxY, let content = layout.content(atLine: line) {
            switch content {
            case .header(let section):
                drawHeader(section: section, into: &buffer, x: rect.x, y: y, width: rect.width)
            case .row(let indexPath):
                drawRow(at: indexPath, into: &buffer, x: rect.x, y: y, width: rect.width, now: now, layouts: &layouts)
            }
            y += 1
            line += 1
        }
        if y < rect.maxY { buffer.fill(TerminalRect(x: rect.x, y: y, width: rect.width, height: rect.maxY - y)) }
    }

    private func drawHeader(section: Int, into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
        guard width > 0 else { return }
        let style = configuration.sectionHeaderStyle
        let title = section < headerTitles.count ? headerTitles[section] ?? "" : ""
        let detail = dataSource?.tableView(self, detailForHeaderInSection: section)
        buffer.fill(TerminalRect(x: x, y: y, width: width, height: 1), style: style)
        var used = buffer.write(" \(title) ", at: x, row: y, style: style, maxWidth: width)
        var tail = detail.map { " \($0) ──" } ?? ""
        var tailWidth = DisplayWidth.of(tail)
        if used + 1 + tailWidth > width {
            tail = ""
            tailWidth = 0
        }
        while used < width - tailWidth {
            used += buffer.write("─", at: x + used, row: y, style: style, maxWidth: 1)
        }
        buffer.write(tail, at: x + width - tailWidth, row: y, style: style, maxWidth: tailWidth)
    }

    private func drawRow(
        at indexPath: IndexPath, into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int,
        now: ContinuousClock.Instant, layouts: inout [Int: ColumnLayout]
    ) {
        guard width > 0 else { return }
        guard let dataSource else {
            buffer.fill(TerminalRect(x: x, y: y, width: width, height: 1))
            return
        }
        let cell = dataSource.tableView(self, cellForRowAt: indexPath)
        var style = cell.style ?? .plain
        if let flash = flashes.flash(at: indexPath, now: now),
            let overlay = (configuration.usesColors ? configuration.flashStyles : configuration.monochromeFlashStyles)[flash]
        {
            style = style.applying(overlay)
        }
        let isSelected = indexPath == selection
        if isSelected { style = style.applying(configuration.selectionStyle) }
        buffer.fill(TerminalRect(x: x, y: y, width: width, height: 1), style: style)
        if isSelected {
            buffer.write(String(configuration.selectionMarker), at: x, row: y, style: style, maxWidth: min(1, width))
        }
        let columnCount = columns.isEmpty ? cell.columns.count : columns.count
        let layout: ColumnLayout
        if let cached = layouts[columnCount] {
            layout = cached
        } else {
            layout = columnLayout(count: columnCount, width: width - Self.rowIndent)
            layouts[columnCount] = layout
        }
        let right = x + width
        for (index, slot) in layout.slots.enumerated() where index < cell.columns.count {
            drawText(
                cell.columns[index], in: slot, x: x + Self.rowIndent, y: y, right: right, style: style, into: &buffer)
        }
    }

    /// Rows are indented by this many cells: the selection marker and a space.
    static let rowIndent = 2

    private func columnLayout(count: Int, width: Int) -> ColumnLayout {
        let columns = self.columns.isEmpty ? Array(repeating: TableColumn(""), count: count) : self.columns
        return ColumnLayout(columns: columns, width: width, spacing: configuration.columnSpacing)
    }

    private func drawColumnTitles(into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
        guard width > 0 else { return }
        let style = configuration.columnHeaderStyle
        buffer.fill(TerminalRect(x: x, y: y, width: width, height: 1), style: style)
        let layout = columnLayout(count: columns.count, width: width - Self.rowIndent)
        for (column, slot) in zip(columns, layout.slots) {
            drawText(column.title, in: slot, x: x + Self.rowIndent, y: y, right: x + width, style: style, into: &buffer)
        }
    }

    /// Draws `text` aligned in its column slot, shortened with an ellipsis when it is wider than the
    /// column, and clipped at `right`.
    private func drawText(
        _ text: String, in slot: ColumnLayout.Slot, x: Int, y: Int, right: Int, style: TextStyle,
        into buffer: inout ScreenBuffer
    ) {
        let start = x + slot.x
        guard slot.width > 0, start < right else { return }
        var shown = Substring(text)
        var shownWidth = DisplayWidth.of(text)
        var ellipsis = false
        if shownWidth > slot.width {
            (shown, shownWidth) = DisplayWidth.prefix(of: text, fitting: slot.width - 1)
            ellipsis = true
        }
        let totalWidth = shownWidth + (ellipsis ? 1 : 0)
        let offset: Int
        switch slot.alignment {
        case .leading: offset = 0
        case .trailing: offset = slot.width - totalWidth
        case .center: offset = (slot.width - totalWidth) / 2
        }
        let limit = min(slot.width, right - start)
        var used = buffer.write(shown, at: start + offset, row: y, style: style, maxWidth: max(0, limit - offset))
        if ellipsis {
            used += buffer.write(
                "…", at: start + offset + used, row: y, style: style, maxWidth: max(0, limit - offset - used))
        }
    }

    // MARK: - Section index

    /// The width of the index column (a gap plus the widest title), or 0 when there is no index or
    /// showing it would leave the rows fewer than ten cells.
    private func sectionIndexWidth(titles: [String], availableWidth: Int) -> Int {
        guard !titles.isEmpty else { return 0 }
        let width = 1 + max(1, titles.map { DisplayWidth.of($0) }.max() ?? 1)
        return availableWidth - width >= 10 ? width : 0
    }

    private func drawSectionIndex(_ titles: [String], into buffer: inout ScreenBuffer, in rect: TerminalRect) {
        let currentSection = layout.section(atLine: topLine)
        for (offset, entry) in SectionIndexLayout.entries(titleCount: titles.count, lines: rect.height).enumerated() {
            let y = rect.y + offset
            guard let index = entry else {
                buffer.write(
                    "•", at: rect.x + 1, row: y, style: configuration.sectionIndexStyle, maxWidth: rect.width - 1)
                continue
            }
            let title = titles[index]
            let isCurrent =
                currentSection != nil
                && dataSource?.tableView(self, sectionForSectionIndexTitle: title, at: index) == currentSection
            let style = isCurrent ? configuration.currentSectionIndexStyle : configuration.sectionIndexStyle
            buffer.write(title, at: rect.x + 1, row: y, style: style, maxWidth: rect.width - 1)
        }
    }
}

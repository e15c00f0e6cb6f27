import Foundation
import SectionedChanges

extension TableView {
    // MARK: - Batches

    /// Starts a batch: the changes that follow are recorded and applied together at the matching
    /// ``endUpdates()``. Batches nest; only the outermost pair takes effect, as in UIKit.
    public func beginUpdates() {
        updateDepth += 1
    }

    /// Ends a batch. At the outermost level, checks the recorded changes against the data source's
    /// new counts by UIKit's rules, then applies them: the selection, the scroll position and existing
    /// highlights follow their rows, and the changed rows are highlighted.
    ///
    /// A batch that breaks the rules is a bug in the caller: with the default
    /// ``InvalidUpdatePolicy/trap`` the program stops with a message naming the section and both
    /// counts; with ``InvalidUpdatePolicy/reloadData`` the table reloads instead. Use
    /// ``performBatchUpdates(_:)`` to receive the error.
    public func endUpdates() {
        precondition(updateDepth > 0, "endUpdates() called without a matching beginUpdates()")
        updateDepth -= 1
        guard updateDepth == 0 else { return }
        do {
            try commitPendingUpdates()
        } catch {
            handleInvalidUpdate(error)
        }
    }

    /// Applies a whole batch given as one `SectionedChangeset` — for example the one a fetched-results
    /// controller hands a changeset delegate — as ``beginUpdates()``, the same changes one by one, and
    /// ``endUpdates()`` would, without recording them one by one: checked by UIKit's rules against the data
    /// source's new counts (a batch that breaks them is handled as ``endUpdates()`` handles one), then
    /// applied. Inside an open batch, its changes join that batch.
    public func applyChanges(_ changeset: SectionedChangeset) {
        guard updateDepth == 0 else {
            pending.append(changeset)
            return
        }
        let shape = readShape()
        do {
            try changeset.validate(oldRowCounts: layout.rowCounts, newRowCounts: shape.rowCounts)
        } catch {
            handleInvalidUpdate(error)
            return
        }
        apply(changeset, reloadedSections: [:], newShape: shape)
    }

    /// A batch that broke UIKit's rules: trap with the message, or reload, as the configuration says.
    private func handleInvalidUpdate(_ error: BatchUpdateError) {
        switch configuration.invalidUpdatePolicy {
        case .trap:
            // fatalError rather than preconditionFailure: the message must survive -O builds.
            fatalError(error.description)
        case .reloadData:
            reloadData()
        }
    }

    /// Runs `updates` as one batch and applies it, or throws when the batch breaks UIKit's rules.
    ///
    /// This is the non-trapping form of ``beginUpdates()``/``endUpdates()``, whatever the
    /// configured policy. When it throws, the table has reloaded from the data source, so it is
    /// consistent again. Called inside an outer batch, it only records: the outer batch is checked
    /// when it ends.
    public func performBatchUpdates(_ updates: () -> Void) throws(BatchUpdateError) {
        updateDepth += 1
        updates()
        updateDepth -= 1
        guard updateDepth == 0 else { return }
        do {
            try commitPendingUpdates()
        } catch {
            reloadData()
            throw error
        }
    }

    // MARK: - Recording changes

    /// Inserts rows at `indexPaths`, which name positions *after* the batch.
    public func insertRows(at indexPaths: [IndexPath]) {
        record { $0.insertedRows.append(contentsOf: indexPaths) }
    }

    /// Deletes the rows at `indexPaths`, which name positions *before* the batch.
    public func deleteRows(at indexPaths: [IndexPath]) {
        record { $0.deletedRows.append(contentsOf: indexPaths) }
    }

    /// Redraws the rows at `indexPaths` (positions before the batch) and highlights them as updated.
    public func reloadRows(at indexPaths: [IndexPath]) {
        record { $0.reloadedRows.append(contentsOf: indexPaths) }
    }

    /// Moves the row at `indexPath` (before the batch) to `newIndexPath` (after it).
    public func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        record { $0.movedRows.append(RowMove(from: indexPath, to: newIndexPath)) }
    }

    /// Inserts sections at the given indexes (after the batch).
    public func insertSections(_ sections: IndexSet) {
        record { $0.insertedSections.append(contentsOf: sections) }
    }

    /// Deletes the sections at the given indexes (before the batch), with their rows.
    public func deleteSections(_ sections: IndexSet) {
        record { $0.deletedSections.append(contentsOf: sections) }
    }

    /// Re-reads the given sections (indexes before the batch) entirely and highlights them as updated.
    /// Applied as a deletion of each section and an insertion at its place after the batch.
    public func reloadSections(_ sections: IndexSet) {
        record { $0.reloadedSections.append(contentsOf: sections) }
    }

    /// Records a change; outside a batch it is applied at once, as a batch of its own (as UIKit does).
    private func record(_ change: (inout PendingBatchUpdate) -> Void) {
        beginUpdates()
        change(&pending)
        endUpdates()
    }

    // MARK: - Applying a batch

    private func commitPendingUpdates() throws(BatchUpdateError) {
        let recorded = pending
        pending = PendingBatchUpdate()
        let oldLayout = layout
        let (changeset, reloadedSections) = try recorded.changeset(oldSectionCount: oldLayout.sectionCount)
        let shape = readShape()
        try changeset.validate(oldRowCounts: oldLayout.rowCounts, newRowCounts: shape.rowCounts)
        apply(changeset, reloadedSections: reloadedSections, newShape: shape)
    }

    private func apply(
        _ changeset: SectionedChangeset, reloadedSections: [Int: Int],
        newShape shape: (rowCounts: [Int], titles: [String?])
    ) {
        let oldLayout = layout
        let oldSelection = selection
        let selectionScreenLine = oldSelection.flatMap { screenLine(ofContentLine: oldLayout.line(of: $0)) }
        let anchor = oldLayout.content(atLine: topLine)

        layout = SectionLayout(rowCounts: shape.rowCounts, hasHeader: shape.titles.map { $0 != nil })
        headerTitles = shape.titles
        let mapping = IndexMapping(changeset: changeset, oldSectionCount: oldLayout.sectionCount)

        // The selection follows its row; a deleted selected row hands over to the row now in its place.
        var selectedItemChanged = false
        if let oldSelection {
            if let moved = mapping.newIndexPath(for: oldSelection) {
                selection = moved
            } else {
                selection = replacement(
                    forDeleted: oldSelection, mapping: mapping, reloadedSections: reloadedSections, oldLayout: oldLayout
                )
                selectedItemChanged = true
            }
        } else if configuration.keepsRowSelected, let first = layout.indexPath(atAbsoluteRow: 0) {
            selection = first
            selectedItemChanged = true
        }

        // A visible selection keeps its screen line; otherwise the row at the top stays at the top.
        if viewportHeight > 0, let line = selectionScreenLine, let selection {
            topLine = topLine(placing: layout.line(of: selection), atScreenLine: line)
        } else {
            topLine = clampedTopLine(
                newTopLine(for: anchor, mapping: mapping, reloadedSections: reloadedSections, oldLayout: oldLayout))
        }

        let now = timeSource.now
        // Only rows on or near the screen keep or get a highlight: a fast import changes thousands of rows
        // a second, and following each one's highlight through every batch would cost more than the batch.
        let nearby = linesKeepingHighlights
        let isNearby = { [layout] (indexPath: IndexPath) in nearby.contains(layout.line(of: indexPath)) }
        flashes.remap(through: mapping, now: now, keeping: isNearby)
        let reloadedNewSections = Set(reloadedSections.values)
        if configuration.flashDuration > .zero {
            let deadline = now.advanced(by: configuration.flashDuration)
            for section in changeset.insertedSections {
                flashes.setSection(
                    section, reloadedNewSections.contains(section) ? .updated : .inserted, until: deadline)
            }
            for indexPath in changeset.insertedRows where isNearby(indexPath) {
                flashes.setRow(indexPath, .inserted, until: deadline)
            }
            for move in changeset.movedRows where isNearby(move.to) { flashes.setRow(move.to, .moved, until: deadline) }
            for update in changeset.updatedRows {
                if let indexPath = mapping.newIndexPath(for: update.from), isNearby(indexPath) {
                    flashes.setRow(indexPath, .updated, until: deadline)
                }
            }
        }
        if selectedItemChanged { delegate?.tableViewSelectionDidChange(self) }
    }

    /// The row to select when the selected row at `old` was deleted: the row now at the same position
    /// of its section (clamped; a reloaded section counts as the same section), or, when the section
    /// went, the first row of the next section that stayed, else the last row.
    private func replacement(
        forDeleted old: IndexPath, mapping: IndexMapping, reloadedSections: [Int: Int], oldLayout: SectionLayout
    ) -> IndexPath? {
        if let section = mapping.sections.newSection(forOld: old.section) ?? reloadedSections[old.section] {
            return layout.nearestRow(section: section, row: old.row)
        }
        for oldSection in (old.section + 1)..<max(old.section + 1, oldLayout.sectionCount) {
            if let section = mapping.sections.newSection(forOld: oldSection) {
                return layout.nearestRow(section: section, row: 0)
            }
        }
        return layout.nearestRow(section: layout.sectionCount - 1, row: Int.max)
    }

    /// The line that shows, after the batch, what `anchor` showed before it.
    private func newTopLine(
        for anchor: SectionLayout.Line?, mapping: IndexMapping, reloadedSections: [Int: Int], oldLayout: SectionLayout
    ) -> Int {
        let oldSection: Int
        switch anchor {
        case nil:
            return topLine
        case .header(let section):
            oldSection = section
        case .row(let indexPath):
            if let moved = mapping.newIndexPath(for: indexPath) { return layout.line(of: moved) }
            if let section = mapping.sections.newSection(forOld: indexPath.section)
                ?? reloadedSections[indexPath.section],
                let nearest = layout.nearestRow(section: section, row: indexPath.row)
            {
                return layout.line(of: nearest)
            }
            oldSection = indexPath.section
        }
        for candidate in oldSection..<max(oldSection, oldLayout.sectionCount) {
            if let section = mapping.sections.newSection(forOld: candidate) ?? reloadedSections[candidate] {
                return layout.firstLine(ofSection: section)
            }
        }
        return layout.totalLines
    }
}

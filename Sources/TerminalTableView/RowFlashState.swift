import Foundation
import SectionedChanges

/// Which rows are highlighted, and until when.
///
/// Nothing happens when a highlight ends: whether a row is highlighted is a pure function of its
/// deadline and the current time, as htop decides its "new process" colour. Expired entries are only
/// dropped to keep the table small. Entries follow their rows through every batch via ``remap(through:now:)``,
/// at a cost proportional to the number of live entries, never to the number of rows.
struct RowFlashState: Sendable {
    struct Entry: Sendable, Equatable {
        var kind: RowFlash
        var expiresAt: ContinuousClock.Instant
    }

    /// Highlights of single rows, by index path.
    private(set) var rows: [IndexPath: Entry] = [:]
    /// Highlights of whole sections (inserted or reloaded sections), by section index.
    private(set) var sections: [Int: Entry] = [:]

    var isEmpty: Bool { rows.isEmpty && sections.isEmpty }

    /// The highlight of the row at `indexPath` at time `now`, if any.
    func flash(at indexPath: IndexPath, now: ContinuousClock.Instant) -> RowFlash? {
        if let entry = rows[indexPath], entry.expiresAt > now { return entry.kind }
        if let entry = sections[indexPath.section], entry.expiresAt > now { return entry.kind }
        return nil
    }

    /// The earliest deadline after `now`: when the screen next needs redrawing.
    func nextDeadline(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        for entry in rows.values where entry.expiresAt > now {
            if earliest.map({ entry.expiresAt < $0 }) ?? true { earliest = entry.expiresAt }
        }
        for entry in sections.values where entry.expiresAt > now {
            if earliest.map({ entry.expiresAt < $0 }) ?? true { earliest = entry.expiresAt }
        }
        return earliest
    }

    mutating func setRow(_ indexPath: IndexPath, _ kind: RowFlash, until deadline: ContinuousClock.Instant) {
        rows[indexPath] = Entry(kind: kind, expiresAt: deadline)
    }

    mutating func setSection(_ section: Int, _ kind: RowFlash, until deadline: ContinuousClock.Instant) {
        sections[section] = Entry(kind: kind, expiresAt: deadline)
    }

    /// Drops entries that have expired at `now`.
    mutating func purge(now: ContinuousClock.Instant) {
        rows = rows.filter { $0.value.expiresAt > now }
        sections = sections.filter { $0.value.expiresAt > now }
    }

    /// Moves live entries to where their rows and sections are after a batch; entries of deleted rows
    /// and sections go, and so do row entries whose new place `keeping` turns down.
    mutating func remap(
        through mapping: IndexMapping, now: ContinuousClock.Instant, keeping: (IndexPath) -> Bool = { _ in true }
    ) {
        var newRows: [IndexPath: Entry] = [:]
        newRows.reserveCapacity(rows.count)
        for (indexPath, entry) in rows where entry.expiresAt > now {
            if let destination = mapping.newIndexPath(for: indexPath), keeping(destination) {
                newRows[destination] = entry
            }
        }
        var newSections: [Int: Entry] = [:]
        for (section, entry) in sections where entry.expiresAt > now {
            if let destination = mapping.sections.newSection(forOld: section) { newSections[destination] = entry }
        }
        rows = newRows
        sections = newSections
    }

    mutating func removeAll() {
        rows.removeAll()
        sections.removeAll()
    }
}

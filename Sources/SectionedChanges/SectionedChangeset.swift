import Foundation

/// One batch of section and row changes, in UIKit's index conventions.
///
/// Deletions and reloads name index paths **before** the batch; insertions name index paths **after**
/// it; a move goes from its old index path to its new one. Section deletions use old section indexes,
/// section insertions new ones. This is the contract between a fetched-results controller's delegate
/// callbacks and a table view's `beginUpdates`/`endUpdates`, written down as a value so that both
/// sides (and their tests) check it with the same rules.
public struct SectionedChangeset: Sendable, Hashable, CustomStringConvertible {
    /// Sections removed by the batch, as indexes before it.
    public var deletedSections: IndexSet
    /// Sections added by the batch, as indexes after it.
    public var insertedSections: IndexSet
    /// Rows removed by the batch, as index paths before it.
    public var deletedRows: [IndexPath]
    /// Rows added by the batch, as index paths after it.
    public var insertedRows: [IndexPath]
    /// Rows whose content changed in place (reloads), with their index paths before and after the batch.
    public var updatedRows: [RowUpdate]
    /// Rows that changed position, from their index path before the batch to the one after it.
    public var movedRows: [RowMove]

    /// Creates a changeset; every part defaults to empty.
    public init(
        deletedSections: IndexSet = [],
        insertedSections: IndexSet = [],
        deletedRows: [IndexPath] = [],
        insertedRows: [IndexPath] = [],
        updatedRows: [RowUpdate] = [],
        movedRows: [RowMove] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.deletedRows = deletedRows
        self.insertedRows = insertedRows
        self.updatedRows = updatedRows
        self.movedRows = movedRows
    }

    /// True when the batch changes nothing.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletedRows.isEmpty && insertedRows.isEmpty
            && updatedRows.isEmpty && movedRows.isEmpty
    }

    /// A short summary such as `sections -1 +2, rows -3 +4 ~1 ↕2`.
    public var description: String {
        "sections -\(deletedSections.count) +\(insertedSections.count), rows -\(deletedRows.count) "
            + "+\(insertedRows.count) ~\(updatedRows.count) ↕\(movedRows.count)"
    }
}

/// A row whose content changed without changing its place among the other rows.
///
/// `from` is its index path before the batch (where a table view reloads it); `to` is where it is
/// after the batch, which differs from `from` when other rows were inserted or deleted around it.
public struct RowUpdate: Sendable, Hashable, CustomStringConvertible {
    /// The index path before the batch.
    public var from: IndexPath
    /// The index path after the batch.
    public var to: IndexPath

    /// Creates an update; `to` defaults to `from`.
    public init(from: IndexPath, to: IndexPath? = nil) {
        self.from = from
        self.to = to ?? from
    }

    public var description: String { "\(from.section).\(from.row)→\(to.section).\(to.row)" }
}

/// A row that moved, from its index path before the batch to its index path after it.
public struct RowMove: Sendable, Hashable, CustomStringConvertible {
    /// The index path before the batch.
    public var from: IndexPath
    /// The index path after the batch.
    public var to: IndexPath

    /// Creates a move.
    public init(from: IndexPath, to: IndexPath) {
        self.from = from
        self.to = to
    }

    public var description: String { "\(from.section).\(from.row)→\(to.section).\(to.row)" }
}

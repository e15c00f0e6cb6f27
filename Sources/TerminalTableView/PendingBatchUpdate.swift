import Foundation
import SectionedChanges

/// The operations recorded between the outermost `beginUpdates()` and `endUpdates()`, in the
/// table view's vocabulary, turned into a ``SectionedChangeset`` when the batch ends.
struct PendingBatchUpdate: Sendable {
    var insertedRows: [IndexPath] = []
    var deletedRows: [IndexPath] = []
    var reloadedRows: [IndexPath] = []
    var movedRows: [RowMove] = []
    var insertedSections: [Int] = []
    var deletedSections: [Int] = []
    var reloadedSections: [Int] = []

    /// Adds the changes of a whole batch (``TableView/applyChanges(_:)`` inside an open batch).
    mutating func append(_ changeset: SectionedChangeset) {
        insertedRows += changeset.insertedRows
        deletedRows += changeset.deletedRows
        reloadedRows += changeset.updatedRows.map(\.from)
        movedRows += changeset.movedRows
        insertedSections += changeset.insertedSections
        deletedSections += changeset.deletedSections
    }

    /// The changeset for a table that had `oldSectionCount` sections, and where each reloaded section
    /// (old index) is after the batch.
    ///
    /// A reloaded section becomes a deletion of its old index and an insertion at the index it has
    /// after the batch. Reloading a section that the batch also deletes adds nothing.
    ///
    /// - Throws: ``BatchUpdateError/conflictingSectionOperations(operation:section:)`` when a section
    ///   is deleted, inserted or reloaded twice;
    ///   ``BatchUpdateError/sectionOutOfRangeBefore(operation:section:sectionCount:)`` when a reloaded
    ///   section did not exist.
    func changeset(oldSectionCount: Int) throws(BatchUpdateError) -> (SectionedChangeset, reloaded: [Int: Int]) {
        let deleted = try Self.uniqueSections(deletedSections, operation: "delete")
        let inserted = try Self.uniqueSections(insertedSections, operation: "insert")
        let reloaded = try Self.uniqueSections(reloadedSections, operation: "reload")

        var changeset = SectionedChangeset(
            deletedSections: deleted, insertedSections: inserted, deletedRows: deletedRows,
            insertedRows: insertedRows, updatedRows: reloadedRows.map { RowUpdate(from: $0) }, movedRows: movedRows)
        var reloadedNewSections: [Int: Int] = [:]
        if !reloaded.isEmpty {
            let mapping = SectionMapping(
                oldCount: oldSectionCount, deletedSections: deleted, insertedSections: inserted)
            for section in reloaded where !deleted.contains(section) {
                guard let newSection = mapping.newSection(forOld: section) else {
                    throw .sectionOutOfRangeBefore(operation: "reload", section: section, sectionCount: oldSectionCount)
                }
                changeset.deletedSections.insert(section)
                changeset.insertedSections.insert(newSection)
                reloadedNewSections[section] = newSection
            }
        }
        return (changeset, reloadedNewSections)
    }

    private static func uniqueSections(_ sections: [Int], operation: String) throws(BatchUpdateError) -> IndexSet {
        var set = IndexSet()
        for section in sections {
            guard section >= 0 else {
                throw .sectionOutOfRangeBefore(operation: operation, section: section, sectionCount: 0)
            }
            if set.contains(section) { throw .conflictingSectionOperations(operation: operation, section: section) }
            set.insert(section)
        }
        return set
    }
}

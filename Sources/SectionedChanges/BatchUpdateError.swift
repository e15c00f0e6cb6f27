import Foundation

/// Why a batch of table updates is inconsistent with the data it claims to describe.
///
/// The messages follow UIKit's wording and always name the numbers involved, so that a failing batch
/// can be diagnosed from the message alone.
public enum BatchUpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The number of sections after the batch is not the number before it plus insertions minus deletions.
    case invalidNumberOfSections(before: Int, after: Int, inserted: Int, deleted: Int)
    /// A surviving section's row count after the batch does not add up.
    case invalidNumberOfRows(
        section: Int, before: Int, after: Int, inserted: Int, deleted: Int, movedIn: Int, movedOut: Int)
    /// A deletion, reload or move source names a section that did not exist before the batch.
    case sectionOutOfRangeBefore(operation: String, section: Int, sectionCount: Int)
    /// An insertion or move destination names a section that does not exist after the batch.
    case sectionOutOfRangeAfter(operation: String, section: Int, sectionCount: Int)
    /// A deletion, reload or move source names a row that did not exist before the batch.
    case rowOutOfRangeBefore(operation: String, indexPath: IndexPath, rowCount: Int)
    /// An insertion or move destination names a row that does not exist after the batch.
    case rowOutOfRangeAfter(operation: String, indexPath: IndexPath, rowCount: Int)
    /// Two operations claim the same row (for example a delete and a reload of one index path).
    case conflictingOperations(first: String, second: String, indexPath: IndexPath)
    /// A section index appears twice in the section deletions or insertions.
    case conflictingSectionOperations(operation: String, section: Int)

    public var description: String {
        switch self {
        case let .invalidNumberOfSections(before, after, inserted, deleted):
            return "Invalid update: invalid number of sections. The number of sections contained in the table "
                + "view after the update (\(after)) must be equal to the number of sections contained in the "
                + "table view before the update (\(before)), plus or minus the number of sections inserted or "
                + "deleted (\(inserted) inserted, \(deleted) deleted)."
        case let .invalidNumberOfRows(section, before, after, inserted, deleted, movedIn, movedOut):
            return "Invalid update: invalid number of rows in section \(section). The number of rows contained "
                + "in an existing section after the update (\(after)) must be equal to the number of rows "
                + "contained in that section before the update (\(before)), plus or minus the number of rows "
                + "inserted or deleted from that section (\(inserted) inserted, \(deleted) deleted) and plus or "
                + "minus the number of rows moved into or out of that section (\(movedIn) moved in, "
                + "\(movedOut) moved out)."
        case let .sectionOutOfRangeBefore(operation, section, count):
            return "Invalid update: attempt to \(operation) section \(section), but there are only \(count) "
                + "sections before the update."
        case let .sectionOutOfRangeAfter(operation, section, count):
            return "Invalid update: attempt to \(operation) section \(section), but there are only \(count) "
                + "sections after the update."
        case let .rowOutOfRangeBefore(operation, indexPath, count):
            return "Invalid update: attempt to \(operation) row \(indexPath.row) from section "
                + "\(indexPath.section) which only contains \(count) rows before the update."
        case let .rowOutOfRangeAfter(operation, indexPath, count):
            return "Invalid update: attempt to \(operation) row \(indexPath.row) into section "
                + "\(indexPath.section), but there are only \(count) rows in section \(indexPath.section) "
                + "after the update."
        case let .conflictingOperations(first, second, indexPath):
            return "Invalid update: attempt to \(first) and \(second) the same index path "
                + "(section \(indexPath.section), row \(indexPath.row))."
        case let .conflictingSectionOperations(operation, section):
            return "Invalid update: attempt to \(operation) section \(section) more than once."
        }
    }
}

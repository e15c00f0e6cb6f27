import Foundation

extension SectionedChangeset {
    /// Checks the batch against UIKit's rules for `beginUpdates`/`endUpdates`.
    ///
    /// - The number of sections after the batch equals the number before it, plus insertions, minus deletions.
    /// - For every section that exists both before and after the batch, the rows after it equal the rows
    ///   before it, plus insertions, minus deletions, plus rows moved in, minus rows moved out.
    /// - Deletions, reloads and move sources name rows that existed before the batch; insertions and move
    ///   destinations name rows that exist after it.
    /// - No row is both deleted and reloaded, deleted and moved, reloaded and moved, or moved twice; no
    ///   destination is both inserted and moved to.
    ///
    /// Rows deleted from a deleted section, inserted into an inserted section, or moved out of a deleted
    /// section or into an inserted one are allowed; a fetched-results controller reports them that way.
    ///
    /// - Parameters:
    ///   - oldRowCounts: the number of rows in each section before the batch.
    ///   - newRowCounts: the number of rows in each section after the batch, as the data source reports them.
    /// - Throws: ``BatchUpdateError`` naming the first rule broken and its numbers.
    public func validate(oldRowCounts: [Int], newRowCounts: [Int]) throws(BatchUpdateError) {
        let oldSections = oldRowCounts.count
        let newSections = newRowCounts.count

        for section in deletedSections where section < 0 || section >= oldSections {
            throw .sectionOutOfRangeBefore(operation: "delete", section: section, sectionCount: oldSections)
        }
        for section in insertedSections where section < 0 || section >= newSections {
            throw .sectionOutOfRangeAfter(operation: "insert", section: section, sectionCount: newSections)
        }
        if newSections != oldSections + insertedSections.count - deletedSections.count {
            throw .invalidNumberOfSections(
                before: oldSections, after: newSections,
                inserted: insertedSections.count, deleted: deletedSections.count)
        }

        // Rows that leave their old place (deletes, moves) and rows that arrive at a new place (inserts, moves).
        var removed: [IndexPath: String] = [:]
        var added: [IndexPath: String] = [:]
        var reloaded: Set<IndexPath> = []

        func checkBefore(_ indexPath: IndexPath, _ operation: String) throws(BatchUpdateError) {
            guard indexPath.section >= 0, indexPath.section < oldSections else {
                throw .sectionOutOfRangeBefore(
                    operation: operation, section: indexPath.section, sectionCount: oldSections)
            }
            let count = oldRowCounts[indexPath.section]
            guard indexPath.row >= 0, indexPath.row < count else {
                throw .rowOutOfRangeBefore(operation: operation, indexPath: indexPath, rowCount: count)
            }
        }
        func checkAfter(_ indexPath: IndexPath, _ operation: String) throws(BatchUpdateError) {
            guard indexPath.section >= 0, indexPath.section < newSections else {
                throw .sectionOutOfRangeAfter(
                    operation: operation, section: indexPath.section, sectionCount: newSections)
            }
            let count = newRowCounts[indexPath.section]
            guard indexPath.row >= 0, indexPath.row < count else {
                throw .rowOutOfRangeAfter(operation: operation, indexPath: indexPath, rowCount: count)
            }
        }

        for indexPath in deletedRows {
            try checkBefore(indexPath, "delete")
            if let other = removed.updateValue("delete", forKey: indexPath) {
                throw .conflictingOperations(first: other, second: "delete", indexPath: indexPath)
            }
        }
        for move in movedRows {
            try checkBefore(move.from, "move")
            try checkAfter(move.to, "move")
            if let other = removed.updateValue("move", forKey: move.from) {
                throw .conflictingOperations(first: other, second: "move", indexPath: move.from)
            }
            if let other = added.updateValue("move", forKey: move.to) {
                throw .conflictingOperations(first: other, second: "move to", indexPath: move.to)
            }
        }
        for indexPath in insertedRows {
            try checkAfter(indexPath, "insert")
            if let other = added.updateValue("insert", forKey: indexPath) {
                throw .conflictingOperations(first: other, second: "insert", indexPath: indexPath)
            }
        }
        for update in updatedRows {
            try checkBefore(update.from, "reload")
            if let other = removed[update.from] {
                throw .conflictingOperations(first: other, second: "reload", indexPath: update.from)
            }
            if !reloaded.insert(update.from).inserted {
                throw .conflictingOperations(first: "reload", second: "reload", indexPath: update.from)
            }
        }

        // Per-section count rule for sections that survive the batch.
        let mapping = SectionMapping(
            oldCount: oldSections, deletedSections: deletedSections, insertedSections: insertedSections)
        var deletedIn = [Int](repeating: 0, count: oldSections)
        var movedOut = [Int](repeating: 0, count: oldSections)
        var insertedIn = [Int](repeating: 0, count: newSections)
        var movedIn = [Int](repeating: 0, count: newSections)
        for indexPath in deletedRows { deletedIn[indexPath.section] += 1 }
        for indexPath in insertedRows { insertedIn[indexPath.section] += 1 }
        for move in movedRows {
            // A move within one surviving section changes neither count.
            if mapping.newSection(forOld: move.from.section) == move.to.section { continue }
            movedOut[move.from.section] += 1
            movedIn[move.to.section] += 1
        }
        for oldSection in 0..<oldSections {
            guard let newSection = mapping.newSection(forOld: oldSection) else { continue }
            let before = oldRowCounts[oldSection]
            let after = newRowCounts[newSection]
            let expected = before + insertedIn[newSection] - deletedIn[oldSection]
                + movedIn[newSection] - movedOut[oldSection]
            if after != expected {
                throw .invalidNumberOfRows(
                    section: oldSection, before: before, after: after,
                    inserted: insertedIn[newSection], deleted: deletedIn[oldSection],
                    movedIn: movedIn[newSection], movedOut: movedOut[oldSection])
            }
        }
    }
}

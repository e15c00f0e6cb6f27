import Foundation
import Testing
@testable import ObjectGraph

/// Batch results merged into a context drive its fetched-results controller: inserts, updates (in place and
/// across the predicate) and deletes are reported, and the rows end up as a fresh fetch shows them.
@Suite struct BatchMergeTests {
    private static func request() throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Employee", predicate: try FetchPredicate(format: "age >= 40"))
        request.sortCriteria = [SortCriterion("city"), SortCriterion("name")]
        return request
    }

    private func freshIDs(_ stack: ReportStack) throws -> [ManagedObjectID] {
        let context = stack.context()
        return try context.performAndWait { try context.fetchObjectIDs(try Self.request()) }
    }

    @Test(arguments: StoreKind.allCases) func batchChangesReachALiveController(_ kind: StoreKind) throws {
        let stack = try ReportStack(kind)
        try stack.seed(employees: 80)
        let context = stack.context()
        let recorder = ChangeRecorder()
        let controller = try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: try Self.request(), managedObjectContext: context,
                sectionNameKeyPath: "city")
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        func shown() -> [ManagedObjectID] { context.performAndWait { controller.sectionedIDs.flatMap { $0 } } }
        func lastBatch() -> ChangeRecorder.Batch? { context.performAndWait { recorder.batches.last } }

        // An update that keeps rows in place (salary) and one that moves rows out (age) and across sections (city).
        var update = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "age >= 60"),
            propertiesToUpdate: ["salary": 1.5])
        update.resultType = .objectIDs
        ManagedObjectContext.mergeChanges(fromBatchResult: try context.execute(update), into: [context])
        #expect(!(lastBatch()?.changeset.updatedRows.isEmpty ?? true))
        #expect(shown() == (try freshIDs(stack)))
        let batchesBefore = context.performAndWait { recorder.batches.count }
        update = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "city == 'Oslo' AND age >= 40"),
            propertiesToUpdate: ["age": 12])
        update.resultType = .objectIDs
        let leaving = try context.execute(update)
        #expect(leaving.count > 0)
        ManagedObjectContext.mergeChanges(fromBatchResult: leaving, into: [context])
        #expect(context.performAndWait { recorder.batches.count } == batchesBefore + 1)
        #expect(lastBatch()?.changeset.deletedRows.count == leaving.count)
        #expect(shown() == (try freshIDs(stack)))
        update = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "city == 'Berlin'"),
            propertiesToUpdate: ["city": "Zürich"])
        update.resultType = .objectIDs
        ManagedObjectContext.mergeChanges(fromBatchResult: try context.execute(update), into: [context])
        #expect(shown() == (try freshIDs(stack)))

        // A delete (with its cascades) and an insert.
        var delete = BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate(format: "age > 60"))
        delete.resultType = .objectIDs
        let deleted = try context.execute(delete)
        let visibleDeleted = Set(deleted.objectIDs ?? []).intersection(shown()).count
        #expect(visibleDeleted > 0)
        ManagedObjectContext.mergeChanges(fromBatchResult: deleted, into: [context])
        #expect(lastBatch()?.changeset.deletedRows.count == visibleDeleted)
        #expect(shown() == (try freshIDs(stack)))
        var insert = BatchInsertRequest(entityName: "Employee", objects: [
            ["name": "New A", "age": 45, "city": "Oslo"], ["name": "New B", "age": 50], ["name": "Too young", "age": 20],
        ])
        insert.resultType = .objectIDs
        ManagedObjectContext.mergeChanges(fromBatchResult: try context.execute(insert), into: [context])
        #expect(lastBatch()?.changeset.insertedRows.count == 2)
        #expect(shown() == (try freshIDs(stack)))
        #expect(context.performAndWait { recorder.protocolErrors }.isEmpty)
        // Merged deletions leave the context with deleted objects, never with faults that cannot fire.
        context.performAndWait {
            for id in deleted.objectIDs ?? [] where id.entityName == "Employee" {
                if let object = context.registeredObject(for: id) { #expect(object.isDeleted) }
            }
        }
    }
}

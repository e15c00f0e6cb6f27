import Foundation
import SQLiteStorage
import Testing
import TestSupport

@testable import ObjectGraph

/// A background fetch's query in the SQLite store stops once its ticket is cancelled (a filter typed over),
/// instead of reading to its end.
@Suite struct FetchCancellationTests {
    @Test func aCancelledFetchStopsItsQuery() throws {
        let directory = TemporaryDirectory()
        let stack = try TextSearchIndexTests.Stack(directory.file("c.sqlite"), indexed: false)
        _ = try stack.context.performAndWait {
            try stack.context.execute(BatchInsertRequest(entityName: "Note",
                objects: (0..<3000).map { ["n": .integer(Int64($0)), "title": .string("note \($0)")] }))
        }
        let store = try #require(stack.store)
        let model = stack.coordinator.managedObjectModel
        let entity = try #require(model.entity(named: "Note"))
        // Nothing matches, so no row reaches the visitor: only the store can notice the cancellation.
        let predicate = try FetchPredicate(format: "title CONTAINS[cd] %@", "nothing like this")
        func read(_ ticket: FetchTicket?) -> Result<Int, ObjectGraphError> {
            FetchCancellation.$ticket.withValue(ticket) {
                Result { () throws(ObjectGraphError) -> Int in
                    var rows = 0
                    try store.visitKeyedRows(entity: entity, predicate: predicate, sortCriteria: [], keys: ["n"],
                        includesSubentities: true, model: model) { _, _ in rows += 1 }
                    return rows
                }
            }
        }
        let cancelled = FetchTicket()
        cancelled.cancel()
        switch read(cancelled) {
        case .failure(.sqlite(let error)): #expect(error.code & 0xFF == SQLiteError.interrupt, "\(error)")
        case let other: Issue.record("the query was not stopped: \(other)")
        }
        // A live ticket, or none, reads to the end; the store's connection is usable again.
        #expect(try read(FetchTicket()).get() == 0)
        #expect(try read(nil).get() == 0)
        #expect(try stack.numbers(try FetchPredicate(format: "title CONTAINS[cd] %@", "note 299")).1 == 11)
    }
}

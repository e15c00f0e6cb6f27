import Foundation
import ObjectGraph
import Testing
import TerminalTableView

@testable import People

/// `D` deletes everyone the filter shows as one batch delete, after a confirmation that warns it cannot be
/// undone, and the list follows live, in every stack.
@MainActor
@Suite struct PeopleBatchDeleteTests {
    @Test(arguments: PeopleStack.Kind.allCases)
    func deleteAllFilteredAsksThenDeletesAndTheListFollows(_ kind: PeopleStack.Kind) async throws {
        let fixture = try AppFixture(stack: kind)
        let total = try await fixture.storedCount()
        let older = try await fixture.storedCount(FetchPredicate(format: "age > 60"))
        try #require(older > 0 && older < total)

        // Without a filter, D explains itself and deletes nothing.
        fixture.type("D")
        #expect(fixture.lines.last?.contains("filter with / first") == true)

        fixture.type("/age > 60")
        fixture.press(.enter)
        #expect(fixture.app.list.numberOfPeople == older)
        fixture.type("D")
        #expect(fixture.lines.contains { $0.contains("Delete all \(older) people matching “age > 60”? This cannot be undone. (y/n)") })
        fixture.type("n")
        #expect(try await fixture.storedCount() == total)
        #expect(fixture.app.list.numberOfPeople == older)

        fixture.type("D")
        fixture.type("y")
        await waitUntil("the batch delete finished") { fixture.app.batchDeletesRunning == 0 }
        await waitUntil("the list is empty") { fixture.app.list.numberOfPeople == 0 }
        fixture.app.tick()
        #expect(fixture.lines.last?.hasPrefix(" Deleted \(older) people matching “age > 60” · cannot be undone") == true)
        #expect(try await fixture.storedCount() == total - older)
        #expect(try await fixture.storedCount(FetchPredicate(format: "age > 60")) == 0)
        // Clearing the filter shows everyone who is left, without a refetch from a stale context.
        fixture.press(.escape)
        #expect(fixture.app.list.numberOfPeople == total - older)
        #expect(fixture.app.list.resultsController.fetchedObjects?.allSatisfy { !$0.isDeleted && $0.age <= 60 } == true)
        fixture.type("u")
        #expect(fixture.lines.last?.contains("Nothing to undo") == true)
    }
}

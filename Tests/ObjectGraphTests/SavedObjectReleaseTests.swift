import Foundation
import Testing
@testable import ObjectGraph

/// After a save, a context lets go of the saved objects that nothing outside it holds — Core Data holds
/// registered objects weakly unless they have changes — so a context that many saves pass through (the
/// view context of a nested stack) does not keep every object it ever saved.
@Suite struct SavedObjectReleaseTests {
    @Test(arguments: StoreKind.allCases) func savedObjectsNothingHoldsAreLetGoAndComeBackWhenAskedFor(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.context()
        // Only the context holds this one (its unsaved changes keep it registered until the save).
        try context.performAndWait { _ = try insertPerson("Dropped", into: context) }
        let kept = try context.performAndWait { try insertPerson("Kept", into: context) }
        try context.performAndWait {
            #expect(context.registeredObjectsCount == 2, "unsaved objects stay registered")
            try context.save()
            #expect(context.registeredObjectsCount == 1, "only the held object stays registered")
            #expect(context.registeredObject(for: kept.objectID) === kept)
            #expect(!kept.objectID.isTemporaryID)
            // The other one comes back, with its saved values, when asked for.
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person",
                sortCriteria: [SortCriterion("lastName")]))
            #expect(people.map { $0["lastName"] as String? } == ["Dropped", "Kept"])
            #expect(people[1] === kept)
        }
    }

    @Test(arguments: StoreKind.allCases) func aParentDoesNotKeepWhatItsChildrenPushedOnceSaved(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        for batch in 0..<5 {
            let child = child(of: parent)
            try child.performAndWait {
                for number in 0..<200 { _ = try insertPerson("P\(batch)-\(number)", into: child) }
                try child.save()
                #expect(child.registeredObjectsCount == 0, "the child let go of what it pushed")
            }
            try parent.performAndWait {
                #expect(parent.registeredObjectsCount == 200, "pushed objects are unsaved changes here")
                try parent.save()
                #expect(parent.registeredObjectsCount == 0, "batch \(batch): saved, and nothing holds them")
            }
        }
        let count = try parent.performAndWait { try parent.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        #expect(count == 1_000)
    }
}

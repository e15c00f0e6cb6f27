import Foundation
import Testing
@testable import ObjectGraph

/// A parent context remembers which permanent ID each of its children's temporary IDs became, for as long
/// as a child may still name an object by the temporary one — and no longer, so that a long-lived parent
/// (the view context of a nested stack) does not grow by one mapping per object ever imported through it.
@Suite struct TemporaryIDMappingTests {
    @Test(arguments: StoreKind.allCases)
    func aChildsChangeUnderAnOldTemporaryIDReachesAParentThatLetTheObjectGo(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        let child = child(of: parent)
        try child.performAndWait {
            let person = try insertPerson("Before", into: child)
            try child.save()
            // The parent saves while the child is busy: the permanent ID reaches the child only after this
            // block, so the child's next push still names the person by its temporary ID — and the parent
            // has let its copy go, since nothing holds it there.
            try parent.performAndWait {
                try parent.save()
                #expect(parent.registeredObjectsCount == 0)
            }
            #expect(person.objectID.isTemporaryID)
            person["lastName"] = "After"
            try child.save()
        }
        try parent.performAndWait {
            #expect(parent.hasChanges, "the child's change arrived")
            try parent.save()
        }
        #expect(try storedLastNames(stack) == ["After"])
    }

    @Test(arguments: StoreKind.allCases)
    func aParentForgetsTemporaryIDsOnceEveryChildHasTheirPermanentOnes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        // A child that stays for the whole run, as a view's editing context would.
        let longLived = child(of: parent)
        let batches = 12
        for batch in 0..<batches {
            let child = child(of: parent)
            try child.performAndWait {
                for number in 0..<500 { _ = try insertPerson("P\(batch)-\(number)", into: child) }
                try child.save()
            }
            try parent.performAndWait { try parent.save() }
            // Let the long-lived child take up the new IDs, as its queue does on its own soon after.
            longLived.performAndWait { longLived.adoptPendingPermanentIDs() }
        }
        let remembered = parent.performAndWait { parent.temporaryIDs.count }
        #expect(remembered < 2 * 1_024, "\(remembered) temporary IDs remembered after \(batches * 500) imported")
        #expect(try storedLastNames(stack).count == batches * 500)
    }

    @Test(arguments: StoreKind.allCases)
    func aChildThatHasNotCaughtUpKeepsItsTemporaryIDsResolvable(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        let child = child(of: parent)
        try child.performAndWait {
            // Many saves in the parent while this child is busy and cannot take up the permanent IDs:
            // enough mappings for the parent to tidy up several times.
            var people: [ManagedObject] = []
            for batch in 0..<8 {
                for number in 0..<500 { people.append(try insertPerson("P\(batch)-\(number)", into: child)) }
                try child.save()
                try parent.performAndWait { try parent.save() }
            }
            let stillTemporary = people.filter { $0.objectID.isTemporaryID }.count
            #expect(stillTemporary == people.count)
            for person in people { person["lastName"] = "Z" + ((person["lastName"] as String?) ?? "") }
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        let names = try storedLastNames(stack)
        #expect(names.count == 4_000)
        #expect(names.allSatisfy { $0.hasPrefix("Z") }, "\(names.filter { !$0.hasPrefix("Z") }.count) changes lost")
    }

    @Test func anOldTemporaryIDFindsTheSavedRowWhileAChildMayStillUseIt() throws {
        let stack = try TestStack(.sqlite)
        let context = stack.context()
        let child = child(of: context)
        try child.performAndWait {
            let person = try insertPerson("Kept", into: child)
            try child.save()
            let temporaryID = person.objectID
            // While this child is busy it cannot take up the permanent ID, so the parent keeps the old one.
            try context.performAndWait {
                try context.save()
                #expect(context.registeredObject(for: temporaryID) == nil, "nothing holds it here")
                let object = try context.object(with: temporaryID)
                #expect(!object.objectID.isTemporaryID)
                #expect(object["lastName"] as String? == "Kept")
            }
        }
    }
}

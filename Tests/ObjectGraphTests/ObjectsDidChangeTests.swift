import Foundation
import Testing
@testable import ObjectGraph

/// What one ``ObjectsDidChange`` tells observers: each changed object under exactly one kind.
@Suite struct ObjectsDidChangeTests {
    /// The kinds each object was reported under, by object, for every change the context posts.
    final class Reports {
        var kinds: [[ObjectIdentifier: [String]]] = []

        func record(_ change: ObjectsDidChange) {
            var kinds: [ObjectIdentifier: [String]] = [:]
            for (kind, objects) in [("inserted", change.insertedObjects), ("updated", change.updatedObjects),
                ("deleted", change.deletedObjects), ("refreshed", change.refreshedObjects)]
            {
                for object in objects { kinds[ObjectIdentifier(object), default: []].append(kind) }
            }
            self.kinds.append(kinds)
        }
    }

    @Test func anObjectRefreshedAndThenChangedIsReportedOnlyAsUpdated() throws {
        let stack = try TestStack()
        let context = stack.context()
        let reports = Reports()
        let token = context.addObjectsDidChangeObserver { reports.record($0) }
        let (saved, other) = try context.performAndWait {
            let saved = try context.insertNewObject(forEntityName: "Person")
            saved.setValue(.string("Ada"), forKey: "firstName")
            saved.setValue(.string("King"), forKey: "lastName")
            let other = try context.insertNewObject(forEntityName: "Person")
            other.setValue(.string("Hopper"), forKey: "lastName")
            try context.save()
            reports.kinds.removeAll()

            context.refresh(saved, mergeChanges: true)  // refreshed …
            saved.setValue(.string("Lovelace"), forKey: "lastName")  // … then changed here: an update
            context.refresh(other, mergeChanges: true)  // only refreshed
            context.processPendingChanges()
            return (saved, other)
        }
        withExtendedLifetime(token) {}
        #expect(reports.kinds.count == 1)
        #expect(reports.kinds.first?[ObjectIdentifier(saved)] == ["updated"])
        #expect(reports.kinds.first?[ObjectIdentifier(other)] == ["refreshed"])
    }
}

import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

@Suite struct ContextSavingTests {
    @Test(arguments: StoreKind.allCases) func failedSaveLeavesStoreAndContextUnchanged(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.context()
        try context.performAndWait {
            let saved = try context.insertNewObject(forEntityName: "Person")
            saved["lastName"] = "Saved"
            try context.save()

            saved["lastName"] = "Changed"
            let valid = try context.insertNewObject(forEntityName: "Person")
            valid["lastName"] = "Valid"
            let invalid = try context.insertNewObject(forEntityName: "Person")  // lastName is required
            let temporaryID = invalid.objectID

            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.validation(let failures) = error else { return false }
                return failures.map(\.key) == ["lastName"] && failures.first?.objectID == temporaryID
            }
            // Nothing reached the store…
            let other = stack.context()
            let stored = try other.performAndWait { try other.fetch(FetchRequest<ManagedObject>(entityName: "Person")) }
            #expect(stored.count == 1)
            #expect(stored.first?["lastName"] == "Saved")
            // …and the context kept every change, with its temporary IDs.
            #expect(context.hasChanges)
            #expect(context.insertedObjects.count == 2)
            #expect(invalid.objectID == temporaryID && temporaryID.isTemporaryID)
            #expect(saved.isUpdated)

            invalid["lastName"] = "Fixed"
            try context.save()
            #expect(!context.hasChanges)
            // A new context: `other` keeps the objects it already registered as they were (Core Data's rule).
            let fresh = stack.context()
            let after = try fresh.performAndWait { try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Person")) }
            #expect(Set(after.compactMap { $0["lastName"] as String? }) == ["Changed", "Valid", "Fixed"])
        }
    }

    @Test(arguments: StoreKind.allCases) func conflictingSaveIsRejectedWhole(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let first = stack.context(name: "first")
        let second = stack.context(name: "second")
        let id = try first.performAndWait {
            let person = try first.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Original"
            try first.save()
            return person.objectID
        }
        try second.performAndWait {
            let person = try second.existingObject(with: id)
            person["lastName"] = "Second"
            try second.save()
        }
        try first.performAndWait {
            let person = try first.existingObject(with: id)
            person["lastName"] = "First"
            let extra = try first.insertNewObject(forEntityName: "Person")
            extra["lastName"] = "Extra"
            #expect {
                try first.save()
            } throws: { error in
                guard case ObjectGraphError.mergeConflicts(let conflicts) = error else { return false }
                return conflicts.map(\.objectID) == [id] && conflicts.first?.storeVersion == 2
            }
            #expect(extra.objectID.isTemporaryID)
            #expect(first.hasChanges)
        }
        let count = try second.performAndWait { try second.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        #expect(count == 1)
    }

    @Test func sqliteSaveIsOneTransactionEvenWhenTheDiskRefuses() throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            for index in 0..<10 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "Person \(index)"
            }
            try context.save()
        }
        // A trigger makes the 5th insert of the next save fail inside the transaction.
        let saboteur = try SQLiteConnection(path: stack.storeURL.path)
        try saboteur.execute("""
            CREATE TRIGGER refuse BEFORE INSERT ON ZPERSON WHEN NEW.ZLASTNAME = 'Bad'
            BEGIN SELECT RAISE(ABORT, 'refused by test'); END
            """)
        try context.performAndWait {
            for index in 0..<4 {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = "New \(index)"
            }
            let bad = try context.insertNewObject(forEntityName: "Person")
            bad["lastName"] = "Bad"
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            all[0]["city"] = "Updated"
            context.delete(all[1])
            #expect(throws: ObjectGraphError.self) { try context.save() }
            #expect(context.insertedObjects.count == 5 && context.updatedObjects.count == 1 && context.deletedObjects.count == 1)
        }
        let rows = try saboteur.rows("SELECT count(*), max(Z_PK), sum(ZCITY IS NOT NULL) FROM ZPERSON")
        #expect(rows == [[.integer(10), .integer(10), .integer(0)]])
        #expect(try saboteur.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'") == .integer(10))
        try saboteur.execute("DROP TRIGGER refuse")
        try context.performAndWait {
            try context.save()
            #expect(!context.hasChanges)
        }
        #expect(try saboteur.scalar("SELECT count(*) FROM ZPERSON") == .integer(14))
    }

    @Test func fetchReflectsPendingChangesWithStoreOrder() throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            for name in ["Émile", "adams", "Zoë", "Ærø", "baker"] {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = name
            }
            try context.save()
            let pending = try context.insertNewObject(forEntityName: "Person")
            pending["lastName"] = "Eve"
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortCriteria = [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive)]
            let names = try context.fetch(request).compactMap { $0["lastName"] as String? }
            #expect(names == ["adams", "Ærø", "baker", "Émile", "Eve", "Zoë"])
            request.includesPendingChanges = false
            #expect(try context.fetch(request).count == 5)
        }
    }

    @Test func performAndWaitIsReentrantAndAsyncPerformReturnsValues() async throws {
        let stack = try TestStack()
        let context = stack.context()
        let inner = context.performAndWait { context.performAndWait { 41 + 1 } }
        #expect(inner == 42)
        let count = try await context.perform {
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Async"
            try context.save()
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        #expect(count == 1)
    }
}

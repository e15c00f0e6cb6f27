import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// Accounts whose balances only ever move between each other: their sum never changes, so any lost
/// update shows as a wrong total.
private func bankModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Account", attributes: [
            AttributeDescription(name: "number", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "balance", type: .integer64, defaultValue: 0),
        ])
    ])
}

/// How long the stress run lasts: `STRESS_SECONDS` (the CI stress step sets 20), else 2 s in the ordinary
/// test run.
private var stressDuration: Duration {
    let seconds = ProcessInfo.processInfo.environment["STRESS_SECONDS"].flatMap(Double.init) ?? 2
    return .milliseconds(Int(seconds * 1000))
}

private let accountCount = 12

/// Transfers that committed and that met a conflict (and were retried from the store).
private final class Tally: Sendable {
    let committed = Atomic<Int>(0)
    let conflicted = Atomic<Int>(0)

    func record(_ done: Bool) {
        if done {
            committed.add(1, ordering: .relaxed)
        } else {
            conflicted.add(1, ordering: .relaxed)
        }
    }
}
/// When the first caller asked: the stress run's clock starts then.
private final class StartClock: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    /// The first `now` ever given.
    func begun(_ now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        instant.withLock { instant in
            if let instant { return instant }
            instant = now
            return now
        }
    }
}
private let openingBalance: Int64 = 1_000

/// Moves `amount` from one account to another in `context`, re-reading both first; false on a conflict
/// (the context is rolled back, nothing is lost: the next attempt starts from the store again).
private func transfer(
    _ amount: Int64, from source: ManagedObjectID, to destination: ManagedObjectID, in context: ManagedObjectContext
) -> Bool {
    guard let from = try? context.existingObject(with: source), let to = try? context.existingObject(with: destination)
    else { return false }
    context.refresh(from, mergeChanges: false)
    context.refresh(to, mergeChanges: false)
    from["balance"] = (from["balance"] as Int64? ?? 0) - amount
    to["balance"] = (to["balance"] as Int64? ?? 0) + amount
    do {
        try context.save()
        return true
    } catch {
        context.rollback()
        return false
    }
}

private func storedTotal(_ coordinator: PersistentStoreCoordinator) throws -> Int64 {
    let reader = ManagedObjectContext(concurrencyType: .privateQueue)
    reader.persistentStoreCoordinator = coordinator
    return try reader.performAndWait {
        try reader.fetch(FetchRequest<ManagedObject>(entityName: "Account")).reduce(0) { $0 + ($1["balance"] as Int64? ?? 0) }
    }
}

/// Eight background contexts and the main context transfer money between the same few accounts for the
/// stress duration, with optimistic locking (`.error` policy, rollback and retry on conflicts), while the
/// main context also merges every save and a fetched-results controller follows. Run it under
/// ThreadSanitizer as CI's stress step does: `swift test --sanitize=thread --scratch-path .build-tsan --filter Stress`.
@Suite(.serialized) struct StressTests {
    @Test(arguments: StoreKind.allCases) func concurrentTransfersLoseNoUpdate(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try bankModel())
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("bank.sqlite"))
        let seeder = ManagedObjectContext(concurrencyType: .privateQueue)
        seeder.persistentStoreCoordinator = coordinator
        let ids = try seeder.performAndWait {
            let accounts = try (0..<accountCount).map { number in
                let account = try seeder.insertNewObject(forEntityName: "Account")
                account["number"] = Int64(number)
                account["balance"] = openingBalance
                return account
            }
            try seeder.save()
            return accounts.map(\.objectID)
        }
        let expectedTotal = openingBalance * Int64(accountCount)
        let tally = Tally()

        // The main context merges everything and shows the accounts in a controller, and transfers too.
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = coordinator
        main.automaticallyMergesChangesFromParent = true
        let controller = Unchecked(try await onMainQueue {
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<ManagedObject>(entityName: "Account", sortCriteria: [SortCriterion("number")]),
                managedObjectContext: main)
            let recorder = ChangeRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            return (controller, recorder)
        })

        // The clock starts when the first worker runs (other tests may keep the cooperative pool's few
        // threads busy for a while: a clock started before that once ended the run before any transfer);
        // the run also goes on until some transfers committed (a loaded machine may need longer), within a
        // hard limit.
        let start = StartClock()
        let keepGoing: @Sendable () -> Bool = {
            let now = ContinuousClock.now
            let begun = start.begun(now)
            return now < begun + stressDuration * 3 + .seconds(30)
                && (now < begun + stressDuration || tally.committed.load(ordering: .relaxed) < 100)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let context = ManagedObjectContext(concurrencyType: .privateQueue)
                    context.persistentStoreCoordinator = coordinator
                    context.name = "worker \(worker)"
                    context.automaticallyMergesChangesFromParent = worker.isMultiple(of: 2)
                    var random = SeededRandom(seed: UInt64(worker) &+ 0x5EED)
                    while keepGoing() {
                        let source = Int(random.next() % UInt64(accountCount))
                        let destination = (source + 1 + Int(random.next() % UInt64(accountCount - 1))) % accountCount
                        let amount = Int64(random.next() % 50) + 1
                        let done = context.performAndWait {
                            transfer(amount, from: ids[source], to: ids[destination], in: context)
                        }
                        tally.record(done)
                    }
                }
            }
            group.addTask {
                var random = SeededRandom(seed: 0xA11)
                while keepGoing() {
                    let source = Int(random.next() % UInt64(accountCount))
                    let destination = (source + 1) % accountCount
                    let done = (try? await onMainQueue { transfer(7, from: ids[source], to: ids[destination], in: main) })
                        ?? false
                    tally.record(done)
                }
            }
        }

        #expect(try storedTotal(coordinator) == expectedTotal, "no update was lost")
        #expect(tally.committed.load(ordering: .relaxed) >= 100)
        print("stress \(kind): \(tally.committed.load(ordering: .relaxed)) transfers, "
            + "\(tally.conflicted.load(ordering: .relaxed)) conflicts retried")
        // The main context catches up by merging (bounded wait on the state itself), and its controller agrees.
        let settle = ContinuousClock.now + .seconds(20)
        var shown: Int64 = -1
        while ContinuousClock.now < settle {
            shown = try await onMainQueue {
                main.refreshAllObjects()
                return (controller.value.0.fetchedObjects ?? []).reduce(Int64(0)) { $0 + ($1["balance"] as Int64? ?? 0) }
            }
            if shown == expectedTotal { break }
        }
        #expect(shown == expectedTotal)
        let rows = try await onMainQueue { controller.value.0.numberOfFetchedObjects }
        #expect(rows == accountCount)
    }
}

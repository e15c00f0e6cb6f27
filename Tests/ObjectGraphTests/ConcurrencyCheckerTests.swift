import Foundation
import Testing
@testable import ObjectGraph

/// The debug switch `OBJECTGRAPH_CONCURRENCY_DEBUG=1` makes any use of a context off its queue a trap,
/// like Core Data's concurrency debug flag. Exit tests run each case in a child process.
@Suite struct ConcurrencyCheckerTests {
    @Test func useOffTheQueueTrapsWithTheCheckerOn() async {
        await #expect(processExitsWith: .failure) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            guard let stack = try? TestStack(.inMemory) else { return }
            let context = stack.context(name: "background")
            _ = try? context.insertNewObject(forEntityName: "Person")  // not inside perform: traps
        }
    }

    @Test func useOnTheQueuePassesWithTheCheckerOn() async {
        await #expect(processExitsWith: .success) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            guard let stack = try? TestStack(.inMemory) else { exit(2) }
            let context = stack.context(name: "background")
            let saved = context.performAndWait { () -> Bool in
                guard let person = try? context.insertNewObject(forEntityName: "Person") else { return false }
                person["lastName"] = "Queue"
                return (try? context.save()) != nil
            }
            exit(saved ? 0 : 3)
        }
    }
}

import Foundation

/// Runs blocking `work` on a thread of its own and waits for it without blocking: a test that spends seconds
/// waiting on pipes or child processes then does not hold one of the few threads of Swift concurrency's
/// cooperative pool (as many as there are cores), so the other suites keep running meanwhile.
///
/// Record issues after this returns, not inside `work`: the thread is not part of the test's task.
///
/// ```swift
/// let report = try await runOnOwnThread { try longBlockingLoop() }
/// #expect(report.problems.isEmpty)
/// ```
public func runOnOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.name = "runOnOwnThread"
        thread.start()
    }
}

import Foundation

/// A value behind a lock: the framework's shared mutable state that is touched from several queues.
///
/// It stands in for `Synchronization.Mutex`, whose Linux implementation (a bare futex) is invisible to
/// ThreadSanitizer, so every correctly locked access was reported as a race and real races could hide among
/// them. `NSLock` is a pthread mutex, which ThreadSanitizer understands. The value is only reachable inside
/// ``withLock(_:)``, which is what makes the `@unchecked Sendable` sound.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

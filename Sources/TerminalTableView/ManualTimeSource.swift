import Foundation

/// A clock that moves only when told to: tests advance it past a deadline instead of sleeping.
///
///     let clock = ManualTimeSource()
///     let table = TableView(timeSource: clock)
///     // … insert a row: it flashes …
///     clock.advance(by: .seconds(2))
///     // … the flash is gone.
///
/// It is safe to share between threads: it is `@unchecked Sendable` because its one mutable instant is only
/// touched under an `NSLock` (which ThreadSanitizer can see, unlike `Synchronization.Mutex` on Linux).
public final class ManualTimeSource: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var current: ContinuousClock.Instant

    /// Creates a clock that starts at `start` (by default the real current instant).
    public init(start: ContinuousClock.Instant = .now) {
        current = start
    }

    /// The instant the clock stands at.
    public var now: ContinuousClock.Instant {
        lock.withLock { current }
    }

    /// Moves the clock forward by `duration` (backward when it is negative).
    public func advance(by duration: Duration) {
        lock.withLock { current = current.advanced(by: duration) }
    }
}

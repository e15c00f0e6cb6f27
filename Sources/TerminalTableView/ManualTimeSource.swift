import Synchronization

/// A clock that moves only when told to: tests advance it past a deadline instead of sleeping.
///
///     let clock = ManualTimeSource()
///     let table = TableView(timeSource: clock)
///     // … insert a row: it flashes …
///     clock.advance(by: .seconds(2))
///     // … the flash is gone.
///
/// It is safe to share between threads.
public final class ManualTimeSource: TimeSource {
    private let current: Mutex<ContinuousClock.Instant>

    /// Creates a clock that starts at `start` (by default the real current instant).
    public init(start: ContinuousClock.Instant = .now) {
        current = Mutex(start)
    }

    /// The instant the clock stands at.
    public var now: ContinuousClock.Instant {
        current.withLock { $0 }
    }

    /// Moves the clock forward by `duration` (backward when it is negative).
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: duration) }
    }
}

/// Where a view reads the current time from.
///
/// Row highlights expire by comparing stored deadlines with `now`; injecting the clock makes that
/// exact in tests (``ManualTimeSource``) instead of a matter of sleeping and hoping.
public protocol TimeSource: Sendable {
    /// The current instant on a monotonic clock.
    var now: ContinuousClock.Instant { get }
}

/// The real monotonic clock.
public struct SystemTimeSource: TimeSource {
    /// Creates the system time source.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }
}

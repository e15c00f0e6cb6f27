import Dispatch
import Foundation

/// Measures how long the main queue is kept from running: a heartbeat is due every ``interval`` (60 Hz by
/// default, a display's frame), and each heartbeat records how late it ran. A main thread that is free
/// runs every heartbeat within a fraction of a millisecond; a main thread busy with a merge, a disk write
/// or a wait for another queue runs the next heartbeat late by that long.
///
/// After a stall the heartbeats are not caught up one by one: the next one is due an interval after the
/// late one ran, so one stall is one late heartbeat.
@MainActor
public final class MainQueueStallMeter {
    /// What the heartbeats saw.
    public struct Report: Sendable, Hashable, CustomStringConvertible {
        /// The heartbeats that ran.
        public var heartbeats: Int
        /// How long the meter ran.
        public var duration: Duration
        /// Median lateness.
        public var p50: Duration
        /// 99th-percentile lateness.
        public var p99: Duration
        /// The longest lateness: the longest time the main queue could not run a block.
        public var max: Duration
        /// Heartbeats later than 50 ms (a stall a person notices).
        public var lateOver50ms: Int

        /// Builds a report from the heartbeats' lateness.
        public init(lateness: [Duration], duration: Duration) {
            let sorted = lateness.sorted()
            func percentile(_ fraction: Double) -> Duration {
                guard !sorted.isEmpty else { return .zero }
                let index = Int((Double(sorted.count - 1) * fraction).rounded(.up))
                return sorted[Swift.min(sorted.count - 1, index)]
            }
            heartbeats = sorted.count
            self.duration = duration
            p50 = percentile(0.5)
            p99 = percentile(0.99)
            max = sorted.last ?? .zero
            lateOver50ms = sorted.filter { $0 > .milliseconds(50) }.count
        }

        /// `late p50 0.1 ms · p99 12.3 ms · max 45.6 ms · 3 beats over 50 ms (1,234 beats in 20.6 s)`.
        public var description: String {
            "late p50 \(Self.ms(p50)) ms · p99 \(Self.ms(p99)) ms · max \(Self.ms(max)) ms · "
                + "\(lateOver50ms) \(lateOver50ms == 1 ? "beat" : "beats") over 50 ms "
                + "(\(NumberText.grouped(heartbeats)) beats in \(String(format: "%.1f", duration.seconds)) s)"
        }

        static func ms(_ duration: Duration) -> String { String(format: "%.1f", duration.seconds * 1000) }
    }

    /// How often a heartbeat is due.
    public let interval: Duration
    private var lateness: [Duration] = []
    private var startedAt: ContinuousClock.Instant?
    private var running = false

    /// A meter with heartbeats every `interval` (default: 60 per second).
    public init(interval: Duration = .nanoseconds(1_000_000_000 / 60)) {
        self.interval = interval
    }

    /// Starts the heartbeats on the main queue.
    public func start() {
        guard !running else { return }
        running = true
        lateness = []
        let now = ContinuousClock.now
        startedAt = now
        schedule(due: now + interval)
    }

    /// Stops the heartbeats and reports what they saw.
    @discardableResult
    public func stop() -> Report {
        running = false
        let duration = startedAt.map { ContinuousClock.now - $0 } ?? .zero
        return Report(lateness: lateness, duration: duration)
    }

    private func schedule(due: ContinuousClock.Instant) {
        let delay = Swift.max(.zero, due - ContinuousClock.now)
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            MainActor.assumeIsolated { self?.beat(due: due) }
        }
    }

    private func beat(due: ContinuousClock.Instant) {
        guard running else { return }
        let now = ContinuousClock.now
        lateness.append(Swift.max(.zero, now - due))
        // The next beat keeps the cadence, unless this one was so late that it is already due.
        let next = due + interval > now ? due + interval : now + interval
        schedule(due: next)
    }
}

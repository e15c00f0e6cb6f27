import Foundation

/// How far a store's opening got, when someone follows it through Foundation's `Progress` (see
/// ``PersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)``): one progress object
/// of ``units`` units for the whole opening, and slices of it — a migration step, a table copied, a text index
/// built — handed down in a task-local value. Each slice reports the fraction of its own work; the opening's
/// completed units follow, never going back.
///
/// (Slices are arithmetic, not child `Progress` objects: a tree of progress objects whose totals are set as the
/// work is discovered lost its parent's count on this platform's Foundation, and `Progress.current()`'s pending
/// units are taken by any Foundation call in between that makes a progress of its own.)
final class StoreOpeningProgress: @unchecked Sendable {
    /// The units of the opening's progress.
    static let units: Int64 = 10_000

    /// The slice the running step reports into; nil when nobody follows the opening.
    @TaskLocal static var current: StoreOpeningProgress?

    private let progress: Progress
    private let start: Double
    private let width: Double

    /// The whole of `progress` (whose total is ``units``).
    init(_ progress: Progress) {
        self.progress = progress
        start = 0
        width = 1
    }

    private init(_ progress: Progress, start: Double, width: Double) {
        self.progress = progress
        self.start = start
        self.width = width
    }

    /// Reports that `fraction` (0…1) of this slice's work is done.
    func report(_ fraction: Double) {
        let done = Int64(((start + width * min(max(fraction, 0), 1)) * Double(Self.units)).rounded(.down))
        if done > progress.completedUnitCount { progress.completedUnitCount = min(done, Self.units) }
    }

    /// This slice cut into parts in proportion to `weights`.
    func slices(_ weights: [Int64]) -> [StoreOpeningProgress] {
        let total = Double(max(1, weights.reduce(0) { $0 + max(0, $1) }))
        var offset = start
        return weights.map { weight in
            let part = width * Double(max(0, weight)) / total
            defer { offset += part }
            return StoreOpeningProgress(progress, start: offset, width: part)
        }
    }

    /// The current slice cut in proportion to `weights`; nils when nobody follows.
    static func split(_ weights: [Int64]) -> [StoreOpeningProgress?] {
        guard let current else { return weights.map { _ in nil } }
        return current.slices(weights)
    }

    /// Runs `body` with `slice` as the current one, and counts it done afterwards (a step with nothing to do is
    /// done at once).
    static func run<T, Failure: Error>(_ slice: StoreOpeningProgress?, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let result: Result<T, Failure> = $current.withValue(slice) { Result { () throws(Failure) -> T in try body() } }
        if case .success = result { slice?.report(1) }
        return try result.get()
    }
}

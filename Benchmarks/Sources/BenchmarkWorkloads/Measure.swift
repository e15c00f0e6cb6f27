import ObjectGraph
import CSQLiteRaw
import Foundation

/// Wall-clock time, memory and statistics for the workloads.
public enum Measure {
    /// Monotonic nanoseconds.
    public static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Seconds that `body` takes.
    public static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start) / 1e9
    }

    /// The median of `values` (0 for none).
    public static func median(_ values: [Double]) -> Double { percentile(values, 50) }

    /// The `p`th percentile (nearest rank) of `values` (0 for none).
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// A field of /proc/self/status in kB (`VmRSS`, `VmHWM`), or 0.
    public static func statusKB(_ field: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Double(String(digits)) ?? 0
        }
        return 0
    }

    /// Resident set size in MB.
    public static func rssMB() -> Double { statusKB("VmRSS") / 1024 }

    /// Peak resident set size in MB since the process started (or since ``resetPeakRSS()``).
    public static func peakRSSMB() -> Double { statusKB("VmHWM") / 1024 }

    /// Resets the kernel's peak-RSS mark to the current RSS (`/proc/self/clear_refs` with 5).
    public static func resetPeakRSS() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Drops the page cache of `paths` (`posix_fadvise(POSIX_FADV_DONTNEED)` after an fsync), so that the
    /// next read comes from the disk: a cold start.
    public static func evictPages(_ paths: [String]) {
        for path in paths {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { continue }
            fsync(fd)
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            close(fd)
        }
    }
}

/// A store file for a workload: created empty by ObjectGraph (so the schema is exactly what our SQLite store
/// writes), optionally filled by the raw insert path.
public struct StoreFile: Sendable {
    /// The file.
    public let url: URL
    /// Its index variant.
    public let index: PersonModel.Index

    public init(url: URL, index: PersonModel.Index) {
        self.url = url
        self.index = index
    }

    public var path: String { url.path }
    /// The database, WAL and shared-memory files.
    public var allPaths: [String] { [path, path + "-wal", path + "-shm"] }

    /// A fresh scratch folder for the run.
    public static let scratch: URL = {
        let base = ProcessInfo.processInfo.environment["BENCH_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return base
    }()

    /// Creates an empty store named `name` with `index` through ObjectGraph, replacing any earlier file.
    public static func empty(_ name: String, index: PersonModel.Index) throws -> StoreFile {
        let url = scratch.appendingPathComponent(name + ".sqlite")
        let file = StoreFile(url: url, index: index)
        file.remove()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PersonModel.make(index: index))
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        return file
    }

    /// A store named `name` holding `count` generated people (seed 1), filled through the raw path; reused if
    /// a complete one exists from this run.
    public static func filled(_ name: String, index: PersonModel.Index, count: Int) throws -> StoreFile {
        let url = scratch.appendingPathComponent(name + ".sqlite")
        if FileManager.default.fileExists(atPath: url.path),
            let connection = try? RawConnection(path: url.path),
            (try? connection.int("SELECT count(*) FROM ZPERSON")) == Int64(count)
        {
            return StoreFile(url: url, index: index)
        }
        let file = try empty(name, index: index)
        var generator = PersonGenerator(seed: 1)
        var remaining = count
        let connection = try RawConnection(path: file.path, synchronous: "OFF")
        let inserter = try RawInserter(connection)
        while remaining > 0 {
            let rows = generator.people(min(remaining, 100_000))
            try inserter.insert(rows, batchSize: 10_000)
            remaining -= rows.count
        }
        try connection.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        return file
    }

    /// Deletes the store's files.
    public func remove() {
        for path in allPaths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A copy of this (closed) store under another name.
    public func copy(as name: String) throws -> StoreFile {
        let target = StoreFile(url: StoreFile.scratch.appendingPathComponent(name + ".sqlite"), index: index)
        target.remove()
        for (from, to) in zip(allPaths, target.allPaths) where FileManager.default.fileExists(atPath: from) {
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        return target
    }

    /// Opens the store in a new coordinator.
    public func coordinator() throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PersonModel.make(index: index))
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        return coordinator
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Wakes a check when a store file may have been written by another connection — another coordinator or another
/// process — without busy polling: inotify on the store's folder (a WAL commit modifies `<store>-wal`; a
/// checkpoint or a rollback-journal commit the store file), confirmed by the check itself (`PRAGMA data_version`
/// on a connection of the watcher's own), with a slow poll as the fallback for file systems that send no events.
///
/// An inotify event can arrive before the commit it belongs to is visible (the WAL frames are written, then
/// synced, then the commit published through shared memory, which inotify does not see): a wake-up whose check
/// finds nothing new is checked again a few times over the next ~200 ms.
///
/// Everything runs on the watcher's own serial queue. The check returns whether it found a change.
///
/// `@unchecked Sendable`: every mutable property but ``stopFlag`` (a lock) is read and written only on
/// ``queue`` (the sources' handlers, the re-checks and `start` all run there); the tests' ThreadSanitizer runs
/// cover it.
final class StoreChangeWatcher: @unchecked Sendable {
    private let queue: DispatchQueue
    private let directory: String
    private let fileNames: Set<String>
    private let check: () -> Bool
    private var inotifyDescriptor: Int32 = -1
    private var readSource: DispatchSourceRead?
    private var pollTimer: DispatchSourceTimer?
    /// Bumped by every wake-up, so that re-checks of an older wake-up stop once a newer one took over.
    private var wakeGeneration = 0
    /// Set by ``stop()`` from any thread; read on the queue.
    private let stopFlag = Locked(false)
    private var stopped: Bool { stopFlag.withLock { $0 } }

    /// Delays after a wake-up at which an unchanged store is checked again.
    static let recheckDelays: [Int] = [5, 20, 60, 150]

    /// Watches the store file at `path`, calling `check` on the watcher's queue whenever it may have changed and
    /// at least every `pollInterval`.
    init(path: String, pollInterval: TimeInterval, check: @escaping () -> Bool) {
        let url = URL(fileURLWithPath: path)
        directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        fileNames = [name, name + "-wal", name + "-journal"]
        self.check = check
        queue = DispatchQueue(label: "ObjectGraph.StoreChangeWatcher(\(name))")
        queue.async { self.start(pollInterval: pollInterval) }
    }

    private func start(pollInterval: TimeInterval) {
        guard !stopped else { return }
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if descriptor >= 0 {
            let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE)
            if inotify_add_watch(descriptor, directory, mask) >= 0 {
                inotifyDescriptor = descriptor
                let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
                source.setEventHandler { [weak self] in self?.drainEvents() }
                source.setCancelHandler { close(descriptor) }
                source.resume()
                readSource = source
            } else {
                close(descriptor)
            }
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(max(10, Int(pollInterval * 1000)))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self, !self.stopped else { return }
            _ = self.check()
        }
        timer.resume()
        pollTimer = timer
    }

    /// Reads every queued inotify event; wakes the check when one names the store's files (or the queue overflowed).
    private func drainEvents() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyDescriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let (mask, nameLength) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                if nameLength > 0, offset + headerSize + nameLength <= count {
                    let nameBytes = buffer[(offset + headerSize)..<(offset + headerSize + nameLength)].prefix { $0 != 0 }
                    if let name = String(validating: nameBytes, as: UTF8.self), fileNames.contains(name) { relevant = true }
                }
                offset += headerSize + nameLength
            }
        }
        if relevant && !stopped { wake() }
    }

    /// Checks now and, if nothing was new yet, again after each of ``recheckDelays``.
    private func wake() {
        wakeGeneration += 1
        let generation = wakeGeneration
        if check() { return }
        recheck(generation: generation, step: 0)
    }

    private func recheck(generation: Int, step: Int) {
        guard step < Self.recheckDelays.count else { return }
        let delay = Self.recheckDelays[step] - (step > 0 ? Self.recheckDelays[step - 1] : 0)
        queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            guard let self, !self.stopped, generation == self.wakeGeneration else { return }
            if !self.check() { self.recheck(generation: generation, step: step + 1) }
        }
    }

    /// Asks for a check soon, on the watcher's queue (for example right after the watcher was set up).
    func checkSoon() {
        queue.async { [weak self] in
            guard let self, !self.stopped else { return }
            _ = self.check()
        }
    }

    /// Stops watching (idempotent, from any thread, without waiting): no check starts afterwards.
    func stop() {
        let wasStopped = stopFlag.withLock { flag in
            defer { flag = true }
            return flag
        }
        guard !wasStopped else { return }
        queue.async { [self] in
            readSource?.cancel()
            readSource = nil
            pollTimer?.cancel()
            pollTimer = nil
        }
    }
}

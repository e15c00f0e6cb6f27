import Foundation

/// Observers of one kind, added and removed from any thread, called in the order they were added.
///
/// `@unchecked Sendable` because the handlers themselves may be confined (an objects-did-change handler
/// runs only on its context's queue); the list only stores and hands them out under a lock.
final class ObserverList<Handler>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(id: UInt64, handler: Handler)] = []

    func add(_ id: UInt64, _ handler: Handler) {
        lock.withLock { entries.append((id, handler)) }
    }

    func remove(_ id: UInt64) {
        lock.withLock { entries.removeAll { $0.id == id } }
    }

    var handlers: [Handler] { lock.withLock { entries.map(\.handler) } }
}

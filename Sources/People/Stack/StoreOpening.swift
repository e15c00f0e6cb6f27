import Dispatch
import Foundation
import ObjectGraph
import TerminalTableView

/// The store being opened on a background queue while the screen says how far it got: a store written with an
/// older model version is migrated, and a text index the model asks for is built, when it opens — minutes for a
/// million people — and the terminal should not sit blank meanwhile. Progress comes through Foundation's
/// `Progress`, which ObjectGraph's migration and index building report to.
final class StoreOpening: @unchecked Sendable {
    /// How far the opening got (0…1), read on the main queue while the background queue works.
    let progress = Progress(totalUnitCount: 100)
    /// When the opening began.
    let started = Date()
    private let lock = NSLock()
    private var outcome: Result<PersistentStoreCoordinator, ObjectGraphError>?

    /// Starts opening the store at `storeURL` with `model` on a background queue.
    init(storeURL: URL, model: ManagedObjectModel) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            progress.becomeCurrent(withPendingUnitCount: 100)
            let result = Result { () throws(ObjectGraphError) in
                try PeopleStack.openCoordinator(storeURL: storeURL, model: model)
            }
            progress.resignCurrent()
            lock.withLock { outcome = result }
        }
    }

    /// The coordinator with the store added, or the error; nil while it is still opening.
    var result: Result<PersistentStoreCoordinator, ObjectGraphError>? { lock.withLock { outcome } }

    /// The frame shown while the store opens: the title bar, then what is happening and how far it got.
    static func frame(size: TerminalSize, storeName: String, fraction: Double, seconds: Double) -> ScreenBuffer {
        var buffer = ScreenBuffer(size: size)
        let width = size.columns
        buffer.write(String(repeating: " ", count: max(0, width)), at: 0, row: 0, style: .reverse)
        buffer.write(" People · opening \(storeName)", at: 0, row: 0, style: .reverse, maxWidth: width)
        let row = max(2, size.rows / 2 - 1)
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        buffer.write("Opening the store… \(percent) %  (\(String(format: "%.1f", seconds)) s)", at: 2, row: row,
            maxWidth: width - 2)
        let barWidth = max(10, min(60, width - 6))
        let filled = Int(Double(barWidth) * min(max(fraction, 0), 1))
        buffer.write("▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "▏",
            at: 2, row: row + 1, maxWidth: width - 2)
        buffer.write("A store written by an older version is migrated, and a new search index built, before it opens.",
            at: 2, row: row + 3, style: .dim, maxWidth: width - 2)
        return buffer
    }
}

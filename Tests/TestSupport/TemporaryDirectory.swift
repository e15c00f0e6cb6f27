import Foundation

/// A fresh folder under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder, named after `prefix` and a UUID.
    public init(prefix: String = "objectgraph-tests") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file in the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

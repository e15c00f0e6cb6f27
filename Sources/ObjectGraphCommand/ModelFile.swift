import Foundation
import ObjectGraph

/// Loading the model a command names: an Xcode model file (`.xcdatamodeld` bundle or `.xcdatamodel`).
enum ModelFile {
    /// Loads the model at `path` (its current version, for a versioned bundle), with plain
    /// ``ManagedObject`` objects for every entity.
    ///
    /// - Throws: ``CommandFailure`` naming the file and what is wrong with it.
    static func load(_ path: String) throws(CommandFailure) -> ManagedObjectModel {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("cannot load the model \(path): no such file or directory")
        }
        do {
            return try ManagedObjectModel.load(contentsOf: URL(fileURLWithPath: path), classes: [])
        } catch {
            throw CommandFailure("cannot load the model \(path): \(error)")
        }
    }

    /// The model's name: the bundle's name without its extension (`People` for `People.xcdatamodeld`,
    /// for its version folder `People.xcdatamodeld/People 2.xcdatamodel`, and for that folder's
    /// `contents`).
    static func name(of path: String) -> String {
        var url = URL(fileURLWithPath: path).standardizedFileURL
        if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
        if url.pathExtension == "xcdatamodel", url.deletingLastPathComponent().pathExtension == "xcdatamodeld" {
            url.deleteLastPathComponent()
        }
        return url.deletingPathExtension().lastPathComponent
    }
}

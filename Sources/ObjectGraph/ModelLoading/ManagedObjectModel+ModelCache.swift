import Foundation
import SQLiteStorage

extension ManagedObjectModel {
    /// The model a Core Data SQLite store was written with, from its model cache: the `Z_MODELCACHE` table, whose
    /// one row holds the compiled model as a raw-DEFLATE keyed archive. Its entity version hashes are the store's
    /// (`NSStoreModelVersionHashes`), so the model opens the store it came from as Core Data's own model would.
    ///
    /// Useful when the model's source is lost: `objectgraph model --from-store S` prints it, and it can open the
    /// store or serve as the source version of a migration.
    ///
    /// - Throws: ``ModelLoadError`` when the file cannot be read, has no model cache (stores written by
    ///   ObjectGraph and by Core Data before iOS 5 have none), or the cache is damaged.
    public static func loadCachedModel(fromStoreAt url: URL, classes: [ManagedObject.Type] = []) throws(ModelLoadError)
        -> ManagedObjectModel
    {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ModelLoadError(file: path, reason: .unreadable("no such file"))
        }
        let compressed: Data
        let hashes: [String: Data]?
        do {
            let connection = try SQLiteConnection(path: path, mode: .readOnly)
            defer { connection.close() }
            guard try connection.tableExists("Z_MODELCACHE") else {
                throw ModelLoadError(file: path, reason: .notAModel("the store has no model cache (no Z_MODELCACHE "
                    + "table): only Apple's Core Data keeps one"))
            }
            guard case .blob(let bytes)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") else {
                throw ModelLoadError(file: path, reason: .notAModel("the store has no model cache (Z_MODELCACHE is "
                    + "empty): only Apple's Core Data fills it"))
            }
            compressed = Data(bytes)
            var storeHashes: [String: Data]?
            if try connection.tableExists("Z_METADATA"),
                case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA LIMIT 1"),
                let top = try? PropertyListSerialization.propertyList(from: Data(plist), options: [], format: nil)
                    as? [String: Any]
            {
                storeHashes = (top["NSStoreModelVersionHashes"] as? [String: Any])?.compactMapValues { $0 as? Data }
            }
            hashes = storeHashes
        } catch let error as ModelLoadError {
            throw error
        } catch {
            throw ModelLoadError(file: path, reason: .unreadable("\(error)"))
        }
        let archive: Data
        do {
            archive = try RawDeflate.inflate(compressed, limit: CompiledModels.maximumFileBytes)
        } catch {
            throw ModelLoadError(file: path, reason: .notAModel("the store's model cache cannot be inflated: \(error)"))
        }
        let model = try CompiledModels.decode(archive, source: path + " (Z_MODELCACHE)", versionName: nil,
            classes: classes)
        guard let hashes, !hashes.isEmpty else { return model }
        return ManagedObjectModel(copying: model, bundleURL: nil, compiledEntityVersionHashes: hashes)
    }
}

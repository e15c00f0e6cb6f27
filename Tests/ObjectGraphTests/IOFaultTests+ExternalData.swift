import CFaultVFS
import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

extension IOFaultTests {
    /// A commit that fails on an I/O error may still come back after a crash (see `crashAfterFailedSync`), so the
    /// files its rows would name must outlive the failure: they stay until the next commit, which rules the old
    /// one out, and then go (or, after a crash, stay exactly when the commit came back).
    @Test("A failed commit keeps its external files until the next commit; a crash then finds every file named")
    func failedCommitKeepsExternalFiles() throws {
        try #require(Self.vfsInstalled, "the fault VFS could not be registered")
        let stack = try ExternalDataStack()
        try stack.insertPhoto("baseline", image: ExternalDataModel.bytes(100), in: stack.context())
        let baseline = stack.files
        let folder = stack.directory.url.resolvingSymlinksInPath().path
        let context = stack.context()
        try context.performAndWait {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo["title"] = "big"
            photo["image"] = ExternalDataModel.bytes(500, seed: 2)

            cfaultvfs_arm(folder + "/", CFAULTVFS_SYNC, 0, 1, Fault.syncErrorPersistent.resultCode)
            var failed = false
            do { try context.save() } catch { failed = true }
            cfaultvfs_disarm()
            try #require(failed, "the sync fault did not fail the save")
            #expect(try stack.columns().keys.sorted() == ["baseline"])
            #expect(stack.files.count == baseline.count + 1, "the failed commit's file stays for now")

            // What a crash at this moment leaves: every file a recovered row names exists.
            let crashed = TemporaryDirectory(prefix: "objectgraph-external-crashed")
            let crashedStore = crashed.url.resolvingSymlinksInPath().appendingPathComponent("Photos.sqlite")
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: stack.storeURL.path + suffix, toPath: crashedStore.path + suffix)
            }
            try FileManager.default.copyItem(at: stack.externalFolder.deletingLastPathComponent(),
                to: StoreFiles.supportDirectory(of: crashedStore))
            let connection = try SQLiteConnection(path: crashedStore.path)
            let named = try connection.rows("SELECT ZIMAGE FROM ZPHOTO").compactMap { ExternalDataStack.fileName($0[0]) }
            connection.close()
            let present = try FileManager.default.contentsOfDirectory(
                atPath: ExternalBinaryStorage.folder(ofStore: crashedStore).path)
            #expect(Set(named).isSubset(of: present), "recovered rows name \(named), the folder holds \(present)")

            // The retry commits; the failed commit's file goes with it.
            try context.save()
            let names = try stack.columns().values.compactMap(ExternalDataStack.fileName)
            #expect(names.count == 2 && Set(stack.files) == Set(names))
        }
    }
}

import CFaultVFS
import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

/// I/O errors (issue 7), injected the way SQLite tests itself: a VFS (`CFaultVFS`) wrapping the default one fails
/// the k-th write (or sync) of a save, for k = 0, 1, 2, … until a save runs without reaching k. At every point the
/// save must fail with a typed error (or, if SQLite absorbed the fault, succeed completely), leave the store and
/// the context exactly as they were, and succeed when retried with the fault cleared.
///
/// The VFS becomes the process's default, but it only ever touches files under the folder a test arms it for, so
/// tests of other stores running meanwhile see plain SQLite.
@Suite("I/O faults during a save", .serialized)
struct IOFaultTests {
    /// One kind of fault.
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case writeErrorOnce, writeErrorPersistent, diskFullPersistent, syncErrorOnce, syncErrorPersistent

        var operation: cfaultvfs_operation {
            switch self {
            case .writeErrorOnce, .writeErrorPersistent, .diskFullPersistent: CFAULTVFS_WRITE
            case .syncErrorOnce, .syncErrorPersistent: CFAULTVFS_SYNC
            }
        }
        var isPersistent: Bool { self == .writeErrorPersistent || self == .diskFullPersistent || self == .syncErrorPersistent }
        /// `SQLITE_IOERR_WRITE`, `SQLITE_FULL` or `SQLITE_IOERR_FSYNC` (extended codes are macros Swift cannot import).
        var resultCode: Int32 {
            switch self {
            case .writeErrorOnce, .writeErrorPersistent: SQLiteError.ioError | (3 << 8)
            case .diskFullPersistent: SQLiteError.full
            case .syncErrorOnce, .syncErrorPersistent: SQLiteError.ioError | (4 << 8)
            }
        }
        /// The primary code the save's error must carry.
        var expectedPrimaryCode: Int32 { self == .diskFullPersistent ? SQLiteError.full : SQLiteError.ioError }
        var testDescription: String { rawValue }
    }

    static let vfsInstalled: Bool = cfaultvfs_install() == 0

    /// With `checkpointing`, the store checkpoints its WAL after every commit (`wal_autocheckpoint = 1`), so the
    /// writes and syncs of the checkpoint that follows a commit are fault points too.
    @Test("Every write and sync point of a save", arguments: Fault.allCases, [false, true])
    func everyFaultPoint(_ fault: Fault, checkpointing: Bool) throws {
        try #require(Self.vfsInstalled, "the fault VFS could not be registered")
        let options = PersistentStoreOptions(sqlitePragmas: checkpointing ? ["wal_autocheckpoint": "1"] : [:])
        var failedSaves = 0
        var absorbed = 0
        var points = 0
        while true {
            let k = points
            let directory = TemporaryDirectory(prefix: "objectgraph-iofault")
            let folder = directory.url.resolvingSymlinksInPath().path
            let fixture = try PendingSaveFixture(storeURL: URL(fileURLWithPath: folder).appendingPathComponent("s.sqlite"),
                options: options, baseline: 30)
            defer { fixture.close() }
            fixture.makePendingChanges(inserts: 150, updates: 5, deletes: 5, payloadBytes: 200)
            let storeBefore = try fixture.storeContents()
            let contextBefore = fixture.contextSnapshot()
            #expect(contextBefore.inserted.count == 150 && contextBefore.updated.count == 5
                && contextBefore.deleted.count == 5 && contextBefore.hasChanges)

            cfaultvfs_arm(folder + "/", fault.operation, Int32(k), fault.isPersistent ? 1 : 0, fault.resultCode)
            let error = fixture.save()
            let fired = cfaultvfs_faults_fired()
            cfaultvfs_disarm()

            if fired == 0 {
                // The save made fewer than k + 1 such calls: every point has been covered.
                #expect(error == nil, "\(fault) k=\(k): the save failed with no fault injected: \(String(describing: error))")
                try fixture.expectSavedEverything()
                break
            }
            points += 1
            if let error {
                failedSaves += 1
                try fixture.expectFailedSaveLeftEverythingAlone(error, expectedCode: fault.expectedPrimaryCode,
                    storeBefore: storeBefore, contextBefore: contextBefore)
                let retry = fixture.save()
                #expect(retry == nil, "\(fault) k=\(k): the retry failed: \(String(describing: retry))")
            } else {
                // A fault in the checkpoint after the commit, which SQLite ignores: the save must be complete.
                absorbed += 1
            }
            try fixture.expectSavedEverything()
            try #require(points < 2_000, "\(fault): no end to the fault points")
        }
        print("IOFaultTests: \(fault)\(checkpointing ? " + checkpoint" : ""): \(points) fault points, "
            + "\(failedSaves) failed saves (all retried), \(absorbed) absorbed by SQLite")
        // Proof that faults really were injected and reached the save.
        #expect(points > 0 && failedSaves > 0)
    }

    /// What a crash right after a failed sync leaves. SQLite writes a commit's frames to the WAL and then syncs
    /// it; when the sync fails, the save reports the error and the live store (and a retry) behaves as if nothing
    /// was written. But the frames are in the WAL file, complete with their commit marker: if the process dies
    /// before the next write or a clean close, WAL recovery at the next open finds them, and the save that
    /// "failed" is there. The store stays consistent (the save is there whole or not at all), but "a failed save
    /// leaves the store as it was" holds only until such a crash. A copy of the database and WAL files taken
    /// right after the failure stands in for the crash (a kill leaves exactly these files).
    @Test("A crash right after a failed WAL sync: the save is all-or-nothing, but may surface")
    func crashAfterFailedSync() throws {
        try #require(Self.vfsInstalled, "the fault VFS could not be registered")
        let directory = TemporaryDirectory(prefix: "objectgraph-iofault-crash")
        let folder = directory.url.resolvingSymlinksInPath().path
        let storeURL = URL(fileURLWithPath: folder).appendingPathComponent("s.sqlite")
        let fixture = try PendingSaveFixture(storeURL: storeURL, baseline: 30)
        defer { fixture.close() }
        fixture.makePendingChanges(inserts: 150, updates: 5, deletes: 5, payloadBytes: 200)
        let storeBefore = try fixture.storeContents()

        cfaultvfs_arm(folder + "/", CFAULTVFS_SYNC, 0, 1, Fault.syncErrorPersistent.resultCode)
        let error = fixture.save()
        cfaultvfs_disarm()
        try #require(error != nil, "the sync fault did not fail the save")
        #expect(try fixture.storeContents() == storeBefore)

        let crashed = TemporaryDirectory(prefix: "objectgraph-iofault-crashed")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: storeURL.path + suffix, toPath: crashed.file("s.sqlite" + suffix).path)
        }
        let connection = try SQLiteConnection(path: crashed.file("s.sqlite").path)
        defer { connection.close() }
        let recovered = try connection.rows("SELECT ZNAME, ZVALUE FROM ZRECORD")
        var values: [String: Int64] = [:]
        for row in recovered {
            if case .text(let name) = row[0], case .integer(let value) = row[1] { values[name] = value }
        }
        #expect(try connection.rows("PRAGMA integrity_check") == [[.text("ok")]])
        // All or nothing, always.
        let allOrNothing = values == storeBefore.values || values == fixture.expectedAfterSave
        #expect(allOrNothing, "recovery produced a partial save: \(values.count) rows")
        withKnownIssue("SQLite keeps a failed commit's frames in the WAL; a crash before the next write revives them") {
            #expect(values == storeBefore.values,
                "the failed save is in the store after crash recovery (\(values.count) rows, not \(storeBefore.rows.count))")
        }
    }
}

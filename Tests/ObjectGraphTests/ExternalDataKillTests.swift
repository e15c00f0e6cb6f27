import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Crash consistency of external binary storage (issue 11): `objectgraph-crash-importer --external` runs saves
/// that each write files, replace a value and delete one, and is SIGKILLed at random moments. After every kill,
/// before the store is opened again, every file a row names must exist (a commit never names a missing file);
/// opening it must remove exactly the files no row names; and every value must read back as written.
///
/// `EXTERNAL_KILL_COUNT` sets the number of kills (25 by default) and `KILL_SEED` replays a run.
@Suite("External data kill test", .serialized)
struct ExternalDataKillTests {
    static let steps = 40

    @Test("SIGKILL during saves with external files: no committed row loses its file, orphans go on open")
    func randomKills() async throws {
        let importer = try CrashImporter.require()
        let environment = ProcessInfo.processInfo.environment
        let killTarget = environment["EXTERNAL_KILL_COUNT"].flatMap(Int.init) ?? 25
        let seed = environment["KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("ExternalDataKillTests: seed \(seed) (KILL_SEED=\(seed) replays it), \(killTarget) kills")
        let report = try await runOnOwnThread { try Self.killLoop(importer: importer, killTarget: killTarget, seed: seed) }
        for problem in report.problems { Issue.record("seed \(seed): \(problem)") }
        print("ExternalDataKillTests: seed \(seed): \(report.kills) kills, \(report.runsLeavingOrphans) left orphaned "
            + "files (\(report.orphansRemoved) removed on open), \(report.valuesChecked) values read back")
        guard report.problems.isEmpty else { return }
        #expect(report.kills >= killTarget)
        // The test proves something only if kills landed between writing files and finishing a save.
        #expect(report.runsLeavingOrphans > 0)
    }

    struct Report: Sendable {
        var kills = 0
        var runsLeavingOrphans = 0
        var orphansRemoved = 0
        var valuesChecked = 0
        var problems: [String] = []
    }

    static func killLoop(importer: String, killTarget: Int, seed: UInt64) throws -> Report {
        var random = SeededRandom(seed: seed)
        var report = Report()
        while report.kills < killTarget {
            let directory = TemporaryDirectory(prefix: "objectgraph-external-kill")
            let store = directory.url.resolvingSymlinksInPath().appendingPathComponent("blobs.sqlite")
            let errorLog = directory.file("stderr.log")
            var finished = false
            while !finished {
                let child = try RunningChildProcess(executable: importer,
                    arguments: [store.path, "--external", "--until", "\(steps)"], errorLog: errorLog)
                let killing = report.kills < killTarget
                if killing {
                    child.waitForLines(Int.random(in: 1...8, using: &random), timeout: 30)
                    child.collect(for: Double.random(in: 0..<0.012, using: &random))
                    child.signal(SIGKILL)
                }
                let status = try child.waitForExit(timeout: 60)
                if RunningChildProcess.terminatingSignal(status) == SIGKILL {
                    report.kills += 1
                } else if RunningChildProcess.exitStatus(status) == 0, child.lines.last == "D" {
                    finished = true
                } else {
                    let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
                    report.problems.append("the importer ended with status \(status): \(child.lines.suffix(5)) \(log)")
                    return report
                }
                if let problem = try audit(store, &report) {
                    report.problems.append("after \(child.lines.suffix(3)): \(problem)")
                    return report
                }
            }
        }
        return report
    }

    /// Checks the store after a run: first with plain SQLite and the file system, then opened (which removes
    /// orphans) and read through the framework. Returns what is wrong, if anything.
    static func audit(_ store: URL, _ report: inout Report) throws -> String? {
        guard FileManager.default.fileExists(atPath: store.path) else { return nil }
        let folder = ExternalBinaryStorage.folder(ofStore: store)
        func files() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        }
        var referenced: Set<String> = []
        do {
            let connection = try SQLiteConnection(path: store.path, mode: .readWrite)
            defer { connection.close() }
            guard try connection.tableExists("ZEXTERNALBLOB") else { return nil }
            for row in try connection.rows("SELECT ZDATA FROM ZEXTERNALBLOB") {
                if case .blob(let bytes) = row[0], bytes.first == 0x02 {
                    referenced.insert(String(decoding: bytes.dropFirst(), as: UTF8.self))
                }
            }
        }
        let before = files()
        let missing = referenced.subtracting(before)
        if !missing.isEmpty { return "committed rows name files that do not exist: \(missing.sorted())" }
        let orphans = before.subtracting(referenced)
        if !orphans.isEmpty { report.runsLeavingOrphans += 1 }

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try externalModel())
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = 1_024
        let added = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: store, options: options)
        defer { try? coordinator.remove(added) }
        let after = files()
        if after != referenced {
            return "after opening, the folder holds \(after.count) files, the rows name \(referenced.count)"
        }
        report.orphansRemoved += orphans.count
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { () throws -> String? in
            let blobs = try context.fetch(FetchRequest<ManagedObject>(entityName: "ExternalBlob",
                sortCriteria: [SortCriterion("serial")]))
            let serials = blobs.compactMap { ($0["serial"] as Int64?).map(Int.init) }
            if let last = serials.last, serials != Array(max(0, last - 2)...last) {
                return "the store holds blobs \(serials), not the last three steps"
            }
            for blob in blobs {
                let serial = Int(blob["serial"] as Int64? ?? -1)
                let generation = Int(blob["generation"] as Int64? ?? -1)
                if (blob["data"] as Data?) != externalBytes(serial: serial, generation: generation) {
                    return "blob \(serial) (generation \(generation)) does not read back as written"
                }
                report.valuesChecked += 1
            }
            return nil
        }
    }

    /// The importer's model (`ExternalDataSteps.swift` in objectgraph-crash-importer).
    static func externalModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "ExternalBlob", attributes: [
                AttributeDescription(name: "serial", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "generation", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "data", type: .binary, allowsExternalBinaryDataStorage: true),
            ])
        ])
    }

    /// The importer's bytes of blob `serial` at `generation`.
    static func externalBytes(serial: Int, generation: Int) -> Data {
        let count = serial % 5 == 0 ? 300 : 2_000 + (serial * 131 + generation * 17) % 3_000
        return Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ serial &* 13 &+ generation &* 101) })
    }
}

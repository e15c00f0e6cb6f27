import Foundation
import Testing
@testable import ObjectGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Crash consistency of the atomic store: `objectgraph-crash-importer --atomic` imports batches, one
/// `context.save()` (one rewrite of the whole file) per batch, and is SIGKILLed at random moments — while
/// building a batch, inside the save (encoding, writing the temporary file, fsync, rename), between batches.
/// After every kill the file must open (never a half-written file), hold exactly the rows of complete saves
/// (batches 0…P, each whole, every value intact), keep every batch the importer acknowledged, and the next run
/// must resume at P + 1. No temporary file survives the next run.
///
/// `ATOMIC_KILL_COUNT` sets the number of kills (50 by default) and `KILL_SEED` replays a run.
@Suite("Atomic store kill test", .serialized)
struct AtomicKillTests {
    static let batchSize = 25
    static let roundBatches = 30

    @Test("SIGKILL during atomic saves leaves the last complete save, and imports resume")
    func randomKills() async throws {
        let importer = try CrashImporter.require()
        let environment = ProcessInfo.processInfo.environment
        let killTarget = environment["ATOMIC_KILL_COUNT"].flatMap(Int.init) ?? 50
        let seed = environment["KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("AtomicKillTests: seed \(seed) (KILL_SEED=\(seed) replays it), \(killTarget) kills (ATOMIC_KILL_COUNT)")
        let report = try await runOnOwnThread { try Self.killLoop(importer: importer, killTarget: killTarget, seed: seed) }
        print("AtomicKillTests: seed \(seed): \(report.statistics.summary); \(report.killsMidWrite) kills left a "
            + "temporary file (killed between creating it and the rename)")
        for problem in report.problems { Issue.record("seed \(seed) (KILL_SEED replays it): \(problem)") }
        guard report.problems.isEmpty else { return }
        #expect(report.statistics.kills >= killTarget)
        // Saves take most of the time (each one encodes, writes and flushes the whole file): most kills land in
        // one; the rest land while a batch is built or between batches (timing decides how many of each).
        let phases = report.statistics.phases
        #expect(phases[.saving, default: 0] >= killTarget / 5, "seed \(seed): \(report.statistics.summary)")
        #expect(phases[.building, default: 0] + phases[.betweenBatches, default: 0] >= 1,
            "seed \(seed): \(report.statistics.summary)")
    }

    /// What a kill loop found.
    struct Report: Sendable {
        var statistics = KillStatistics()
        var problems: [String] = []
        /// Kills after which a temporary file was left: the process died in the middle of a rewrite.
        var killsMidWrite = 0
    }

    static func killLoop(importer: String, killTarget: Int, seed: UInt64) throws -> Report {
        var random = SeededRandom(seed: seed)
        var report = Report()
        while report.statistics.kills < killTarget {
            let directory = TemporaryDirectory(prefix: "objectgraph-atomic-kill")
            let store = directory.file("import.store")
            let errorLog = directory.file("importer-stderr.log")
            report.statistics.rounds += 1
            var highest = -1
            var finished = false
            while !finished {
                let plan = report.statistics.kills < killTarget ? KillPlan(&random) : nil
                let child = try RunningChildProcess(executable: importer, arguments: [store.path, "--atomic",
                    "--batch-size", "\(batchSize)", "--until", "\(roundBatches)"], errorLog: errorLog)
                if let plan {
                    if plan.lines > 0 { child.waitForLines(plan.lines, timeout: 30) }
                    child.collect(for: plan.extraMilliseconds / 1000)
                    child.signal(SIGKILL)
                }
                let status = try child.waitForExit(timeout: 60)
                let lines = child.lines
                var outcome = RunOutcome(lines: lines, killed: false, phase: KillPhase(lastLine: lines.last),
                    committedWithoutAcknowledgement: false)
                func fail(_ problem: String) -> Report {
                    let stderr = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
                    report.problems.append("\(problem)\nround \(report.statistics.rounds), kill plan "
                        + "\(plan.map { "\($0)" } ?? "none"); importer output \(lines.suffix(12)); stderr: \(stderr)")
                    return report
                }
                if RunningChildProcess.terminatingSignal(status) == SIGKILL {
                    outcome.killed = true
                } else if RunningChildProcess.exitStatus(status) == 0 && lines.last == "D" {
                    finished = true
                } else {
                    return fail("the importer ended with wait status \(status) (not SIGKILL, not done)")
                }
                if let resume = lines.first(where: { $0.hasPrefix("R ") }), resume != "R \(highest + 1)" {
                    return fail("the importer resumed with '\(resume)'; the store's highest batch was \(highest)")
                }
                let state: AtomicImportAudit.State
                do {
                    state = try AtomicImportAudit.audit(store, batchSize: batchSize)
                } catch {
                    return fail("the store does not open after the kill: \(error)")
                }
                if !state.violations.isEmpty { return fail("store damaged: \(state.violations.joined(separator: "; "))") }
                let present = state.batches.last ?? -1
                let acknowledged = lines.compactMap { $0.hasPrefix("C ") ? Int($0.dropFirst(2)) : nil }.max()
                let lastSaveStarted = lines.compactMap { $0.hasPrefix("S ") ? Int($0.dropFirst(2)) : nil }.max()
                let known = max(acknowledged ?? -1, highest)
                if present < known { return fail("batches were lost: the store holds 0…\(present), but \(known) was committed") }
                if present > known {
                    guard present == known + 1, lastSaveStarted == present else {
                        return fail("the store holds batch \(present), but only \(known) was acknowledged")
                    }
                    outcome.committedWithoutAcknowledgement = true
                }
                highest = present
                report.statistics.record(outcome)
                let temporaries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                    .filter { $0.contains("objectgraph-temp") }
                if outcome.killed && !temporaries.isEmpty { report.killsMidWrite += 1 }
            }
            let final = try AtomicImportAudit.audit(store, batchSize: batchSize)
            if final.batches != Array(0..<roundBatches) || !final.violations.isEmpty {
                report.problems.append("round \(report.statistics.rounds) ended with batches \(final.batches): \(final.violations)")
                return report
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.contains("objectgraph-temp") }
            if !leftovers.isEmpty {
                report.problems.append("temporary files survived a complete run: \(leftovers)")
                return report
            }
        }
        return report
    }

    @Test("The checks catch a torn batch (the harness has teeth)")
    func harnessDetectsATornBatch() throws {
        let importer = try CrashImporter.require()
        let directory = TemporaryDirectory(prefix: "objectgraph-atomic-kill-teeth")
        let store = directory.file("torn.store").path
        let errorLog = directory.file("stderr.log")
        #expect(try CrashImporter.run(importer, [store, "--atomic", "--batch-size", "10", "--until", "2"],
            errorLog: errorLog).status == 0)
        let tearing = try CrashImporter.run(importer, [store, "--atomic", "--batch-size", "10", "--until", "4",
            "--fault", "tear-batch"], errorLog: errorLog)
        #expect(RunningChildProcess.terminatingSignal(tearing.status) == SIGKILL)
        let state = try AtomicImportAudit.audit(directory.file("torn.store"), batchSize: 10)
        #expect(state.violations.contains { $0.contains("batch 2 holds 5 objects") }, "\(state.violations)")
    }
}

/// Reads the importer's atomic store through a read-only coordinator and checks the invariants.
enum AtomicImportAudit {
    struct State {
        var batches: [Int] = []
        var violations: [String] = []
    }

    /// The importer's model (Sources/ObjectGraphCrashImporter/main.swift), which the file's hashes must match.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "ImportedItem", attributes: [
                AttributeDescription(name: "batch", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "seq", type: .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription(name: "payload", type: .string),
            ])
        ])
    }

    /// The store at `url` (missing: empty), audited; throws when it does not open.
    static func audit(_ url: URL, batchSize: Int) throws -> State {
        guard FileManager.default.fileExists(atPath: url.path) else { return State() }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        let store = try coordinator.addPersistentStore(ofType: .atomic, configurationName: nil, at: url,
            options: PersistentStoreOptions(isReadOnly: true))
        let contents = try StoreContents.read(from: store, model: coordinator.managedObjectModel)
        var state = State()
        var byBatch: [Int64: [Int64]] = [:]
        var highestKey: Int64 = 0
        for row in contents.rows {
            guard case .integer(let batch) = row.values[0], case .integer(let seq) = row.values[1],
                case .string(let payload) = row.values[2]
            else {
                state.violations.append("row \(row.objectID) has values \(row.values)")
                continue
            }
            if payload != "item \(seq) of batch \(batch): " + String(repeating: "x", count: 40 + Int(seq) % 23) {
                state.violations.append("row \(seq) has payload \(payload)")
            }
            byBatch[batch, default: []].append(seq)
            highestKey = max(highestKey, row.objectID.primaryKey ?? 0)
        }
        for (batch, seqs) in byBatch.sorted(by: { $0.key < $1.key }) {
            state.batches.append(Int(batch))
            if seqs.count != batchSize { state.violations.append("batch \(batch) holds \(seqs.count) objects, not \(batchSize)") }
            let first = batch * Int64(batchSize)
            if Set(seqs) != Set(first..<first + Int64(batchSize)) && seqs.count == batchSize {
                state.violations.append("batch \(batch) has sequence numbers \(seqs.sorted())")
            }
        }
        if state.batches != Array(0..<state.batches.count) {
            state.violations.append("batches are not 0…n without gaps: \(state.batches)")
        }
        if (contents.primaryKeyMaxima["ImportedItem"] ?? 0) < highestKey {
            state.violations.append("the key counter is below the highest key \(highestKey)")
        }
        return state
    }
}

import Foundation
import SQLiteStorage
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Crash consistency (issue 7): `objectgraph-crash-importer` imports batches into an SQLite store, one
/// `context.save()` per batch, and is SIGKILLed at random moments. After every kill the store must pass
/// `PRAGMA integrity_check`, hold only complete batches (0…P, none missing, none torn), repeat no primary key or
/// sequence number, keep every batch the importer acknowledged, and the next run must resume at P + 1.
///
/// `KILL_COUNT` sets the number of kills (100 by default, for CI; 300 or more by hand) and `KILL_SEED` replays a
/// run (the seed is printed at the start and in every failure).
@Suite("Kill test", .serialized)
struct KillTests {
    /// Objects per batch.
    static let batchSize = 100
    /// Batches per round: each round starts a fresh store and ends when the importer finishes it.
    static let roundBatches = 40

    @Test("SIGKILL at random moments leaves only complete batches, and imports resume")
    func randomKills() async throws {
        let importer = try CrashImporter.require()
        let environment = ProcessInfo.processInfo.environment
        let killTarget = environment["KILL_COUNT"].flatMap(Int.init) ?? 100
        let seed = environment["KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("KillTests: seed \(seed) (KILL_SEED=\(seed) replays it), \(killTarget) kills (KILL_COUNT)")
        let started = ContinuousClock.now
        // The loop blocks (on the importer's pipe) for seconds: off the cooperative pool, other suites keep going.
        let report = try await runOnOwnThread {
            try Self.killLoop(importer: importer, killTarget: killTarget, seed: seed)
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let statistics = report.statistics
        print("KillTests: seed \(seed): \(statistics.summary) in \(String(format: "%.1f", seconds)) s")
        for problem in report.problems { Issue.record("seed \(seed) (KILL_SEED replays it): \(problem)") }
        guard report.problems.isEmpty else { return }

        // The test proves something only if the kills really happened, and in every phase of an import.
        #expect(statistics.kills >= killTarget)
        #expect(statistics.rounds < 2 || statistics.checkpointedRounds > 0, "no round checkpointed its WAL")
        let minimumPerPhase = max(1, killTarget / 25)
        for phase in [KillPhase.building, .saving, .betweenBatches] {
            #expect(statistics.phases[phase, default: 0] >= minimumPerPhase,
                "seed \(seed): only \(statistics.phases[phase, default: 0]) kills while \(phase) (\(statistics.summary))")
        }
    }

    /// What a kill loop found.
    struct KillReport: Sendable {
        var statistics = KillStatistics()
        /// Broken invariants, each with the round and run; the loop stops at the first damaged store.
        var problems: [String] = []
    }

    /// Rounds of importing under kills until `killTarget` kills happened; every round ends with the importer
    /// finishing the round's store undisturbed.
    static func killLoop(importer: String, killTarget: Int, seed: UInt64) throws -> KillReport {
        var random = SeededRandom(seed: seed)
        var report = KillReport()
        while report.statistics.kills < killTarget {
            let directory = TemporaryDirectory(prefix: "objectgraph-kill")
            // Every other round checkpoints the WAL every 8 pages (every two or three batches), so kills also land
            // inside checkpoints; the others keep SQLite's default (1000 pages: no checkpoint within a round).
            var round = KillRound(storePath: directory.file("import.sqlite").path, batchSize: batchSize,
                batches: roundBatches, walAutocheckpoint: report.statistics.rounds % 2 == 1 ? 8 : nil,
                errorLog: directory.file("importer-stderr.log"))
            defer { round.close() }
            report.statistics.rounds += 1
            while !round.isFinished {
                // Kill only while kills are still wanted; then let the importer finish the round by itself.
                let plan = report.statistics.kills < killTarget ? KillPlan(&random) : nil
                let outcome = try round.run(importer, plan: plan)
                if let problem = outcome.problem {
                    report.problems.append("""
                        \(problem)
                        round \(report.statistics.rounds), run \(report.statistics.runs + 1), kill plan \
                        \(plan.map { "\($0)" } ?? "none"); importer output: \(outcome.lines.suffix(12))
                        importer stderr: \(round.errorLogContents)
                        """)
                    return report
                }
                report.statistics.record(outcome)
            }
            // The round ran to its end: exactly the batches written, each complete, nothing else.
            let final = try round.audit()
            if final.batches != Array(0..<roundBatches) || final.rowCount != roundBatches * batchSize
                || !final.violations.isEmpty
            {
                report.problems.append("round \(report.statistics.rounds) ended with batches \(final.batches), "
                    + "\(final.rowCount) rows: \(final.violations)")
                return report
            }
            // Checkpointing rounds really moved pages from the WAL into the database file.
            let fileSize = (try? FileManager.default.attributesOfItem(atPath: round.storePath)[.size] as? Int) ?? 0
            if round.walAutocheckpoint != nil && fileSize > 100_000 { report.statistics.checkpointedRounds += 1 }
        }
        return report
    }

    @Test("The checks catch a torn batch and a duplicated batch (the harness has teeth)")
    func harnessDetectsDamage() throws {
        let importer = try CrashImporter.require()
        let directory = TemporaryDirectory(prefix: "objectgraph-kill-teeth")
        let errorLog = directory.file("stderr.log")

        // A batch saved in two halves, killed in between, is torn; the importer then refuses to resume.
        let torn = directory.file("torn.sqlite").path
        #expect(try CrashImporter.run(importer, [torn, "--batch-size", "10", "--until", "2"], errorLog: errorLog)
            .status == 0)
        let tearing = try CrashImporter.run(importer, [torn, "--batch-size", "10", "--until", "4",
            "--fault", "tear-batch"], errorLog: errorLog)
        #expect(RunningChildProcess.terminatingSignal(tearing.status) == SIGKILL)
        let tornState = try ImportStoreAudit.audit(torn, batchSize: 10)
        #expect(tornState.violations.contains { $0.contains("batch 2 holds 5 objects") }, "\(tornState.violations)")
        let refused = try CrashImporter.run(importer, [torn, "--batch-size", "10", "--until", "4"], errorLog: errorLog)
        #expect(RunningChildProcess.exitStatus(refused.status) == 3)

        // An importer that resumes one batch too early repeats sequence numbers.
        let twice = directory.file("twice.sqlite").path
        #expect(try CrashImporter.run(importer, [twice, "--batch-size", "10", "--until", "2"], errorLog: errorLog)
            .status == 0)
        let redo = try CrashImporter.run(importer, [twice, "--batch-size", "10", "--until", "3",
            "--fault", "redo-last"], errorLog: errorLog)
        #expect(redo.lines.first == "R 1", "a correct importer would resume at 2")
        let twiceState = try ImportStoreAudit.audit(twice, batchSize: 10)
        #expect(twiceState.violations.contains { $0.contains("repeat") }, "\(twiceState.violations)")
    }
}

// MARK: - The importer executable

/// Finds and runs `objectgraph-crash-importer`, which SwiftPM builds next to the test bundle.
enum CrashImporter {
    /// `OBJECTGRAPH_CRASH_IMPORTER` when set, else the executable next to the test bundle (or in a parent folder).
    static func locate() -> URL? {
        if let override = ProcessInfo.processInfo.environment["OBJECTGRAPH_CRASH_IMPORTER"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent().standardizedFileURL
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("objectgraph-crash-importer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// The importer's path, or an error saying where it was looked for.
    static func require() throws -> String {
        guard let url = locate() else {
            throw RunningChildProcess.Failure(description: "objectgraph-crash-importer was not found next to the "
                + "test bundle; build it (swift build) or set OBJECTGRAPH_CRASH_IMPORTER to its path")
        }
        return url.path
    }

    /// Runs the importer to its end (30 s at most) and returns its raw wait status and output lines.
    static func run(_ importer: String, _ arguments: [String], errorLog: URL) throws -> (status: Int32, lines: [String]) {
        let child = try RunningChildProcess(executable: importer, arguments: arguments, errorLog: errorLog)
        let status = try child.waitForExit(timeout: 30)
        return (status, child.lines)
    }
}

// MARK: - One round: a store, imported under kills until complete

/// Where the importer was when it died: the last progress line it wrote.
enum KillPhase: String, CustomStringConvertible, CaseIterable, Sendable {
    /// No line yet: starting, opening or creating the store, reading where to resume.
    case starting
    /// Inserting a batch's objects into the context (`B`).
    case building
    /// Inside `context.save()` (`S`).
    case saving
    /// After a commit (`C`) or right after resuming (`R`), before the next batch starts.
    case betweenBatches

    var description: String { rawValue }

    init(lastLine: String?) {
        switch lastLine?.first {
        case "B": self = .building
        case "S": self = .saving
        case "C", "R": self = .betweenBatches
        default: self = .starting
        }
    }
}

/// When to kill one run of the importer: after `lines` progress lines, plus a short extra wait spent reading
/// the pipe (with no lines to wait for, the wait counts from the start and covers process start-up).
struct KillPlan: CustomStringConvertible {
    var lines: Int
    var extraMilliseconds: Double

    init(_ random: inout SeededRandom) {
        /// Log-uniform between `low` and `high` milliseconds: short waits as likely as long ones, per decade.
        func logUniform(_ low: Double, _ high: Double) -> Double {
            exp(Double.random(in: log(low)...log(high), using: &random))
        }
        if random.chance(0.12) {
            // From the start: process start-up, opening the store, finding where to resume, or later.
            lines = 0
            extraMilliseconds = logUniform(1, 300)
        } else {
            // Up to four batches (three lines each) after the resume line.
            lines = Int.random(in: 1...13, using: &random)
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.2: extraMilliseconds = 0  // as soon as the line is read: mostly in the phase it opened
            case ..<0.45: extraMilliseconds = Double.random(in: 0...1, using: &random)
            case ..<0.7: extraMilliseconds = Double.random(in: 0...5, using: &random)
            default: extraMilliseconds = logUniform(1, 150)
            }
        }
    }

    var description: String { "after \(lines) lines + \(String(format: "%.1f", extraMilliseconds)) ms" }
}

/// What one run of the importer did.
struct RunOutcome {
    var lines: [String]
    var killed: Bool
    var phase: KillPhase
    /// Whether a batch was committed whose `C` line the importer never wrote (it died right after COMMIT).
    var committedWithoutAcknowledgement: Bool
    var problem: String?
}

/// Runs the importer against one store until it has all batches, checking the store after every run.
struct KillRound {
    let storePath: String
    let batchSize: Int
    let batches: Int
    /// The importer's `--wal-autocheckpoint`, if any.
    let walAutocheckpoint: Int?
    let errorLog: URL
    /// The highest batch the store held after the previous run (-1: none).
    private(set) var highest = -1
    private(set) var isFinished = false
    /// A connection kept open for the whole round, so that auditing never checkpoints or deletes the WAL the
    /// importer left behind (the next importer run must recover from it itself).
    private var auditConnection: SQLiteConnection?

    init(storePath: String, batchSize: Int, batches: Int, walAutocheckpoint: Int?, errorLog: URL) {
        self.storePath = storePath
        self.batchSize = batchSize
        self.batches = batches
        self.walAutocheckpoint = walAutocheckpoint
        self.errorLog = errorLog
    }

    /// What the importer wrote to standard error so far.
    var errorLogContents: String {
        (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
    }

    mutating func close() {
        auditConnection?.close()
        auditConnection = nil
    }

    /// The store as it is now.
    mutating func audit() throws -> ImportStoreState {
        if auditConnection == nil {
            guard FileManager.default.fileExists(atPath: storePath) else { return ImportStoreState() }
            auditConnection = try SQLiteConnection(path: storePath)
        }
        guard let auditConnection else { return ImportStoreState() }
        return try ImportStoreAudit.audit(auditConnection, batchSize: batchSize)
    }

    /// Runs the importer once, killing it as `plan` says (or letting it finish without a plan), and checks what
    /// it left behind.
    mutating func run(_ importer: String, plan: KillPlan?) throws -> RunOutcome {
        let checkpointing = walAutocheckpoint.map { ["--wal-autocheckpoint", "\($0)"] } ?? []
        let child = try RunningChildProcess(executable: importer,
            arguments: [storePath, "--batch-size", "\(batchSize)", "--until", "\(batches)"] + checkpointing,
            errorLog: errorLog)
        if let plan {
            if plan.lines > 0 { child.waitForLines(plan.lines, timeout: 30) }
            child.collect(for: plan.extraMilliseconds / 1000)
            child.signal(SIGKILL)
        }
        let status = try child.waitForExit(timeout: 60)
        let lines = child.lines
        var outcome = RunOutcome(lines: lines, killed: false, phase: KillPhase(lastLine: lines.last),
            committedWithoutAcknowledgement: false)

        if RunningChildProcess.terminatingSignal(status) == SIGKILL {
            outcome.killed = true
        } else if RunningChildProcess.exitStatus(status) == 0 && lines.last == "D" {
            isFinished = true
        } else {
            outcome.problem = "the importer ended with wait status \(status) (not SIGKILL, not done)"
            return outcome
        }

        // The run resumed where the store said it should.
        if let resumeLine = lines.first(where: { $0.hasPrefix("R ") }), resumeLine != "R \(highest + 1)" {
            outcome.problem = "the importer resumed with '\(resumeLine)'; the store's highest batch was \(highest)"
            return outcome
        }
        let state = try audit()
        if !state.violations.isEmpty {
            outcome.problem = "store damaged after the run: \(state.violations.joined(separator: "; "))"
            return outcome
        }
        let present = state.batches.last ?? -1
        let acknowledged = lines.compactMap { $0.hasPrefix("C ") ? Int($0.dropFirst(2)) : nil }.max()
        let lastSaveStarted = lines.compactMap { $0.hasPrefix("S ") ? Int($0.dropFirst(2)) : nil }.max()
        let known = max(acknowledged ?? -1, highest)
        if present < known {
            outcome.problem = "batches were lost: the store holds 0…\(present), but \(known) was committed"
            return outcome
        }
        if present > known {
            // Only the batch whose save was under way may have committed without its acknowledgement.
            guard present == known + 1, lastSaveStarted == present else {
                outcome.problem = "the store holds batch \(present), but the importer acknowledged only \(known) "
                    + "and last started saving \(lastSaveStarted.map(String.init) ?? "nothing")"
                return outcome
            }
            outcome.committedWithoutAcknowledgement = true
        }
        highest = present
        if isFinished && present != batches - 1 {
            outcome.problem = "the importer said it was done, but the store holds 0…\(present)"
        }
        return outcome
    }
}

/// Counts over a whole kill test.
struct KillStatistics: Sendable {
    var kills = 0
    var runs = 0
    var rounds = 0
    var phases: [KillPhase: Int] = [:]
    var committedWithoutAcknowledgement = 0
    /// Rounds with a small `wal_autocheckpoint` whose database file grew (checkpoints ran).
    var checkpointedRounds = 0

    mutating func record(_ outcome: RunOutcome) {
        runs += 1
        guard outcome.killed else { return }
        kills += 1
        phases[outcome.phase, default: 0] += 1
        if outcome.committedWithoutAcknowledgement { committedWithoutAcknowledgement += 1 }
    }

    var summary: String {
        let histogram = KillPhase.allCases.map { "\($0) \(phases[$0, default: 0])" }.joined(separator: ", ")
        return "\(kills) kills in \(runs) runs over \(rounds) rounds, \(checkpointedRounds) checkpointing (\(histogram)); "
            + "\(committedWithoutAcknowledgement) batches committed but not yet acknowledged when killed"
    }
}

// MARK: - Checking the store

/// What the importer's store holds, and what is wrong with it.
struct ImportStoreState {
    /// The batch numbers present, ascending.
    var batches: [Int] = []
    var rowCount = 0
    /// Every broken invariant, in words (empty when the store is sound).
    var violations: [String] = []
}

/// Reads the importer's table (`ZIMPORTEDITEM`) with plain SQL and checks the invariants.
enum ImportStoreAudit {
    /// Opens the store at `path` (which must exist), audits it and closes it.
    static func audit(_ path: String, batchSize: Int) throws -> ImportStoreState {
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        return try audit(connection, batchSize: batchSize)
    }

    /// Audits the store open on `connection`, in one read transaction.
    static func audit(_ connection: SQLiteConnection, batchSize: Int) throws -> ImportStoreState {
        try connection.transaction(.deferred) {
            var state = ImportStoreState()
            let integrity = try connection.rows("PRAGMA integrity_check")
            if integrity != [[.text("ok")]] { state.violations.append("integrity_check: \(integrity)") }
            guard try connection.tableExists("ZIMPORTEDITEM") else { return state }

            for row in try connection.rows("""
                SELECT ZBATCH, count(*), count(DISTINCT ZSEQ), min(ZSEQ), max(ZSEQ)
                FROM ZIMPORTEDITEM GROUP BY ZBATCH ORDER BY ZBATCH
                """)
            {
                guard case .integer(let batch) = row[0], case .integer(let count) = row[1],
                    case .integer(let distinct) = row[2], case .integer(let low) = row[3],
                    case .integer(let high) = row[4]
                else {
                    state.violations.append("unreadable batch row \(row)")
                    continue
                }
                state.batches.append(Int(batch))
                if count != batchSize { state.violations.append("batch \(batch) holds \(count) objects, not \(batchSize)") }
                if distinct != count { state.violations.append("batch \(batch) repeats sequence numbers") }
                let first = batch * Int64(batchSize)
                if low != first || high != first + Int64(batchSize) - 1 {
                    state.violations.append("batch \(batch) has sequence numbers \(low)…\(high)")
                }
            }
            if state.batches != Array(0..<state.batches.count) {
                state.violations.append("batches are not 0…n without gaps: \(state.batches)")
            }
            let totals = try connection.rows(
                "SELECT count(*), count(DISTINCT Z_PK), count(DISTINCT ZSEQ), coalesce(max(Z_PK), 0) FROM ZIMPORTEDITEM")
            if let row = totals.first, case .integer(let count) = row[0], case .integer(let keys) = row[1],
                case .integer(let sequences) = row[2], case .integer(let highestKey) = row[3]
            {
                state.rowCount = Int(count)
                if keys != count { state.violations.append("primary keys repeat (\(keys) distinct of \(count))") }
                if sequences != count {
                    state.violations.append("sequence numbers repeat (\(sequences) distinct of \(count))")
                }
                // The key generator must be past every key in use, or the next run would reuse one.
                let generator = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'ImportedItem'")
                if case .integer(let maximum)? = generator, maximum < highestKey {
                    state.violations.append("Z_PRIMARYKEY.Z_MAX \(maximum) is below the highest key \(highestKey)")
                } else if generator == nil, count > 0 {
                    state.violations.append("Z_PRIMARYKEY has no row for ImportedItem")
                }
            } else {
                state.violations.append("unreadable totals \(totals)")
            }
            return state
        }
    }
}

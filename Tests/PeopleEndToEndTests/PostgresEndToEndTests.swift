import Foundation
import Testing

/// Two `people` browsers and an importer on one PostgreSQL database, each its own process: what one imports shows
/// on both screens (LISTEN/NOTIFY). Needs `OBJECTGRAPH_TEST_POSTGRES` (see `.ci/postgres.sh`), `psql` to make a
/// database of the test's own, and tmux.
@Suite("people on PostgreSQL")
struct PostgresEndToEndTests {
    static let baseURI = ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    /// `psql` on PATH.
    static let psql: String? = ["/usr/bin/psql", "/usr/local/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `executable` with `arguments` and returns its exit status.
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(
        "an import in one process shows in two browsers on the same database",
        .enabled(if: baseURI != nil && psql != nil && TmuxSession.isAvailable,
            "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh), psql and tmux"),
        .timeLimit(.minutes(5))
    )
    func importShowsInTwoBrowsers() async throws {
        let base = try #require(Self.baseURI)
        let psql = try #require(Self.psql)
        let people = try #require(PeopleExecutable.locate(), "set PEOPLE_BINARY to the `people` executable")
        let name = "people_e2e_" + UUID().uuidString.lowercased().filter { $0.isHexDigit }.prefix(12)
        #expect(try Self.run(psql, ["-X", "-q", base, "-c", "CREATE DATABASE \(name)"]) == 0)
        defer { _ = try? Self.run(psql, ["-X", "-q", base, "-c", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"]) }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let uri = try #require(components.string)

        let seedCount = try SampleData.seedCount()
        let first = try TmuxSession(command: [people.path, "--store", uri], width: 100, height: 20)
        defer { first.kill() }
        // (The first browser seeds the new database; the second opens it seeded.)
        try await first.waitUntil("the first browser to show \(seedCount) people", timeout: .seconds(60)) {
            StatusLine.peopleCount(in: $0) == seedCount
        }
        let second = try TmuxSession(command: [people.path, "--store", uri], width: 100, height: 20)
        defer { second.kill() }
        try await second.waitUntil("the second browser to show \(seedCount) people", timeout: .seconds(60)) {
            StatusLine.peopleCount(in: $0) == seedCount
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("people-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("people.json").path
        #expect(try Self.run(people.path, ["generate", "1500", "--out", file, "--seed", "9"]) == 0)
        #expect(try Self.run(people.path, ["import", file, "--store", uri]) == 0)

        let expected = seedCount + 1500
        for (label, session) in [("first", first), ("second", second)] {
            try await session.waitUntil("the \(label) browser to show \(expected) people", timeout: .seconds(60)) {
                StatusLine.peopleCount(in: $0) == expected
            }
        }
        for session in [first, second] {
            try session.sendKeys("q")
            #expect(try await session.waitForExit(timeout: .seconds(20)) == 0)
        }
    }
}

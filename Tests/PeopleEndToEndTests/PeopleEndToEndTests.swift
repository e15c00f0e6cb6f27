import Foundation
import Testing

/// End-to-end tests of the `people` executable in a real terminal (tmux).
@Suite("people in a terminal")
struct PeopleEndToEndTests {
    @Test(
        "a background import lands live, the count never goes down, and q quits with status 0",
        .enabled(
            if: TmuxSession.isAvailable || ProcessInfo.processInfo.environment["CI"] != nil,
            "tmux is not installed; install it to run the end-to-end tests (on CI its absence is a failure)"
        ),
        .timeLimit(.minutes(5))
    )
    func liveImport() async throws {
        guard TmuxSession.isAvailable else {
            Issue.record("tmux is required on CI (CI is set) but was not found on PATH")
            return
        }
        let people = try #require(
            PeopleExecutable.locate(),
            "the `people` executable was not found next to the test bundle; set PEOPLE_BINARY to its path"
        )
        let seedCount = try SampleData.seedCount()
        let generated = 2000
        let expected = seedCount + generated

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("people-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("people.sqlite")

        let session = try TmuxSession(
            command: [people.path, "--store", store.path, "--generate", "\(generated)"],
            width: 100,
            height: 30
        )
        defer { session.kill() }

        var counts: [Int] = []  // each distinct count, in the order seen
        try await session.waitUntil("the status line to show \(expected) people", timeout: .seconds(180)) { screen in
            guard let count = StatusLine.peopleCount(in: screen) else { return false }
            if let previous = counts.last, count < previous {
                throw TmuxSession.Failure(description: """
                    the people count went down from \(previous) to \(count) (seen so far: \(counts)). Screen:
                    \(screen)
                    """)
            }
            if counts.last != count { counts.append(count) }
            return count == expected
        }
        #expect(counts.last == expected)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "counts seen: \(counts)")

        try session.sendKeys("q")
        let status = try await session.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "people exited with status \(status)")
    }
}

/// Reads the status line, the first line of the screen: `People · 2,320 people · 24 sections …`.
enum StatusLine {
    /// The number before "people" on the first line, without its thousands separators; nil when the
    /// status line is not (yet) on screen.
    static func peopleCount(in screen: String) -> Int? {
        guard let firstLine = screen.split(separator: "\n", omittingEmptySubsequences: false).first,
              let match = firstLine.firstMatch(of: #/([0-9][0-9,]*) people/#)
        else { return nil }
        return Int(match.output.1.filter { $0 != "," })
    }
}

/// The sample people that seed a new store, read from the source tree.
enum SampleData {
    /// `Resources/SamplePeople.json`, found from this file's place in the package.
    static var url: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // PeopleEndToEndTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Resources/SamplePeople.json")
    }

    /// How many people a new store starts with.
    static func seedCount() throws -> Int {
        let data = try Data(contentsOf: url)
        guard let people = try JSONSerialization.jsonObject(with: data) as? [Any] else {
            throw TmuxSession.Failure(description: "\(url.path) is not a JSON array")
        }
        return people.count
    }
}

/// Finds the `people` executable that SwiftPM built next to the test bundle.
enum PeopleExecutable {
    /// `PEOPLE_BINARY` when set; otherwise the first executable file named `people` in the test bundle's
    /// directory or one of its parents.
    static func locate() -> URL? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["PEOPLE_BINARY"], !override.isEmpty {
            return fileManager.isExecutableFile(atPath: override) ? URL(fileURLWithPath: override) : nil
        }
        let starts = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
                .deletingLastPathComponent(),
        ]
        for start in starts {
            var directory = start.standardizedFileURL
            for _ in 0..<5 {
                let candidate = directory.appendingPathComponent("people")
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   fileManager.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                directory.deleteLastPathComponent()
            }
        }
        return nil
    }
}

import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test when tmux is installed; on CI (`CI` set) a missing tmux is a failure instead.
    static var needsTmux: Self {
        .enabled(
            if: TmuxSession.isAvailable || ProcessInfo.processInfo.environment["CI"] != nil,
            "tmux is not installed; install it to run the end-to-end tests (on CI its absence is a failure)")
    }
}

/// Requires tmux (a failure when it is missing on CI, where the trait above lets the test run).
func requireTmux() throws {
    if !TmuxSession.isAvailable {
        Issue.record("tmux is required on CI (CI is set) but was not found on PATH")
        throw TmuxSession.Failure(description: "tmux is missing")
    }
}

/// The browser used as a person would: launch, filter, sections, a resize storm.
@Suite("people in a terminal: browsing", .serialized)
struct BrowsingEndToEndTests {
    @Test("launch shows the status line, column titles, the first section, the index and the keys", .needsTmux,
          .timeLimit(.minutes(2)))
    func launch() async throws {
        try requireTmux()
        let run = try PeopleRun()
        let screen = try await run.waitForLaunch()
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(StatusLine.peopleCount(in: screen) == (try SampleData.seedCount()))
        #expect(lines[0].contains("sections"))
        #expect(lines[1].contains("Name") && lines[1].contains("Email") && lines[1].contains("City"))
        #expect(lines[2].hasPrefix(" A ─") && lines[2].hasSuffix(" A"))
        #expect(lines[3].hasPrefix("▸ "))
        #expect(lines.count == 30 && lines[29].contains("q quit") && lines[29].contains("frame"))
        try run.session.sendKeys("q")
        let end = try await run.waitForEnd()
        #expect(end.status == 0)
    }

    @Test("filtering as you type, a bad predicate marked at its column, Esc clears", .needsTmux,
          .timeLimit(.minutes(2)))
    func filter() async throws {
        try requireTmux()
        let run = try PeopleRun()
        let everyone = try #require(StatusLine.peopleCount(in: try await run.waitForLaunch()))
        let expected = try SampleData.count { person in
            ["firstName", "lastName", "email", "city"].contains { key in
                Folding.fold(person[key] as? String ?? "").contains("muller")
            }
        }
        try run.session.type("/muller")
        let filtered = try await run.session.waitUntil("the list filtered to \(expected) people") { screen in
            StatusLine.peopleCount(in: screen) == expected && screen.contains(" / muller")
        }
        #expect(filtered.contains("Müller"))
        try run.session.sendKeys("Escape")
        let older = try SampleData.count { ($0["age"] as? Int ?? 0) > 80 }
        try run.session.type("/age > 80")
        try await run.session.waitUntil("the list filtered by the predicate") { StatusLine.peopleCount(in: $0) == older }
        try run.session.type(" AND")
        let marked = try await run.session.waitUntil("the marker under the end of the bad predicate") { screen in
            screen.contains("\n" + String(repeating: " ", count: 3 + 12) + "^ ")
        }
        #expect(StatusLine.peopleCount(in: marked) == older, "the list stays as it was")
        try run.session.sendKeys("Escape")
        try await run.session.waitUntil("the filter to be cleared") { StatusLine.peopleCount(in: $0) == everyone }
        try run.session.sendKeys("q")
        #expect(try await run.waitForEnd().status == 0)
    }

    @Test("switching sections while an import lands, then g jumps", .needsTmux, .timeLimit(.minutes(3)))
    func sectionsWhileImporting() async throws {
        try requireTmux()
        let run = try PeopleRun(["--generate", "3000", "--batch-size", "250"])
        try await run.waitForLaunch()
        try run.session.sendKeys("s")
        try await run.session.waitUntil("first-name sections") { $0.contains("by first name") }
        try run.session.sendKeys("s", "s")
        let expected = try SampleData.seedCount() + 3000
        let screen = try await run.session.waitUntil("age sections and the whole import", timeout: .seconds(120)) {
            $0.contains("by age") && StatusLine.peopleCount(in: $0) == expected
        }
        #expect(screen.contains("–"))
        try run.session.sendKeys("g", "5")
        try await run.session.waitUntil("the 50–59 section at the top") { screen in
            screen.split(separator: "\n").dropFirst(2).first?.hasPrefix(" 50–59 ") == true
        }
        try run.session.sendKeys("q")
        #expect(try await run.waitForEnd().status == 0)
    }

    @Test("300 resizes, 1×1, 1×N and N×1 included, in under 5 s, ending on a correct frame", .needsTmux,
          .timeLimit(.minutes(2)))
    func resizeStorm() async throws {
        try requireTmux()
        let run = try PeopleRun()
        try await run.waitForLaunch()
        let reference = try PeopleRun(addsStore: false, storeOf: run)
        let expected = try await reference.waitForLaunch()

        var sizes: [(width: Int, height: Int)] = [(1, 1), (1, 50), (200, 1), (1, 1), (20, 5), (19, 4), (2, 2)]
        var state: UInt64 = 42
        while sizes.count < 299 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            sizes.append((Int(state >> 33) % 220 + 1, Int(state >> 17) % 70 + 1))
        }
        sizes.append((100, 30))
        let clock = ContinuousClock()
        let started = clock.now
        try run.session.resizeWindow(through: sizes, perCommand: 3)
        let settled = try await run.session.waitUntil("the frame for 100×30 after the storm") { screen in
            Self.withoutTiming(screen) == Self.withoutTiming(expected)
        }
        let elapsed = clock.now - started
        print("300 resizes under tmux, until the final frame was correct: \(elapsed)")
        #expect(elapsed < .seconds(5))
        #expect(settled.split(separator: "\n", omittingEmptySubsequences: false).count == 30)
        try run.session.sendKeys("q")
        #expect(try await run.waitForEnd().status == 0)
    }

    /// The screen without its last line, which shows measured times.
    static func withoutTiming(_ screen: String) -> [Substring] {
        Array(screen.split(separator: "\n", omittingEmptySubsequences: false).dropLast())
    }
}

extension PeopleRun {
    /// A second run on the store of `other` (already seeded), for comparing screens.
    convenience init(addsStore: Bool, storeOf other: PeopleRun) throws {
        try self.init(["--store", other.store.path], addsStore: false)
    }
}

/// Case and diacritic folding for test expectations (the app's own is in ObjectGraph's StringFolding).
enum Folding {
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .replacingOccurrences(of: "æ", with: "ae").replacingOccurrences(of: "ø", with: "o")
            .replacingOccurrences(of: "ß", with: "ss")
    }
}

extension SampleData {
    /// How many sample people satisfy `predicate` (given each person as a JSON object).
    static func count(where predicate: ([String: Any]) -> Bool) throws -> Int {
        let data = try Data(contentsOf: url)
        let people = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return people.filter(predicate).count
    }
}

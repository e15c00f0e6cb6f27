import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// However `people` ends — `q`, a signal, a crash — the terminal is restored (canonical input, echo,
/// signal keys; the alternate screen left) and the exit status is the conventional one.
@Suite("people in a terminal: ending", .serialized)
struct TerminalRestoreEndToEndTests {
    @Test("q quits with status 0 and the terminal restored", .needsTmux, .timeLimit(.minutes(2)))
    func quit() async throws {
        try requireTmux()
        let run = try PeopleRun()
        try await run.waitForLaunch()
        try run.session.sendKeys("q")
        let end = try await run.waitForEnd()
        #expect(end.status == 0)
        #expect(end.modes == PeopleRun.restoredModes)
        #expect(!end.screen.contains("People ·"), "the alternate screen is gone:\n\(end.screen)")
    }

    @Test(
        "a signal stops people, restores the terminal and ends it by that signal", .needsTmux,
        .timeLimit(.minutes(3)),
        arguments: [("C-c", SIGINT), ("C-\\", SIGQUIT), ("", SIGTERM), ("", SIGHUP)])
    func signal(keys: String, signal: Int32) async throws {
        try requireTmux()
        // An import is running, so the signal arrives while a batch may be saving.
        let run = try PeopleRun(["--generate", "100000", "--batch-size", "200"])
        try await run.waitForLaunch()
        try await run.session.waitUntil("the import to run") { $0.contains("importing") }
        if keys.isEmpty {
            #expect(sendSignal(signal, to: try run.peoplePID()) == 0)
        } else {
            try run.session.sendKeys(keys)
        }
        let end = try await run.waitForEnd()
        #expect(end.status == 128 + Int(signal))
        #expect(end.modes == PeopleRun.restoredModes)
        #expect(!end.screen.contains("People ·"))
    }

    @Test(
        "a crash restores the terminal and keeps the crash's signal", .needsTmux, .timeLimit(.minutes(3)),
        arguments: [("trap", [SIGILL, SIGTRAP]), ("segv", [SIGSEGV]), ("abort", [SIGABRT])])
    func crash(kind: String, signals: [Int32]) async throws {
        try requireTmux()
        let run = try PeopleRun(["--crash-after-launch", kind])
        let end = try await run.waitForEnd()
        #expect(signals.map { 128 + Int($0) }.contains(end.status), "status \(end.status)")
        #expect(end.modes == PeopleRun.restoredModes)
        #expect(!end.screen.contains("Press space to interact"), "the Swift backtracer did not take over")
    }
}

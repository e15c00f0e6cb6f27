import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `people` running in a tmux pane inside a small shell wrapper that, once `people` has ended, prints
/// its exit status and the terminal's line discipline (`icanon`, `echo`, `isig` or their `-` forms), so
/// a test can check that the terminal was restored: `PEOPLE-ENDED status=143 isig icanon echo`.
///
/// The wrapper ignores SIGINT and SIGQUIT itself (so that Ctrl-C and Ctrl-\\ typed into the pane end
/// only `people`); `people` sets its own handling for them at start-up.
final class PeopleRun {
    /// What the wrapper prints after `people` ends.
    static let endMarker = "PEOPLE-ENDED"

    let session: TmuxSession
    let directory: URL
    let store: URL

    /// Starts `people` with `arguments` (a fresh store in a temporary folder is added with `--store`
    /// unless `store` is false).
    init(_ arguments: [String] = [], width: Int = 100, height: Int = 30, environment: [String: String] = [:],
         addsStore: Bool = true) throws {
        let people = try #require(
            PeopleExecutable.locate(),
            "the `people` executable was not found next to the test bundle; set PEOPLE_BINARY to its path")
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("people-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = directory.appendingPathComponent("people.sqlite")
        let script = """
            trap '' INT QUIT
            "$@"
            status=$?
            modes=$(stty -a | tr -s ' ;\\n' '\\n\\n\\n' | grep -x -E -e '-?(icanon|echo|isig)' | tr '\\n' ' ')
            printf '\\n%s status=%s %s\\n' \(Self.endMarker) "$status" "$modes"
            """
        let command = ["/bin/sh", "-c", script, "sh", people.path] + (addsStore ? ["--store", store.path] : []) + arguments
        // Section caches go to the run's folder, not the user's.
        let environment = ["XDG_CACHE_HOME": directory.appendingPathComponent("cache").path]
            .merging(environment) { _, given in given }
        session = try TmuxSession(command: command, width: width, height: height, environment: environment)
    }

    deinit {
        session.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits until the browser shows its list: the status line with a count, and the key line.
    @discardableResult
    func waitForLaunch(timeout: Duration = .seconds(60)) async throws -> String {
        try await session.waitUntil("the list to be on screen", timeout: timeout) { screen in
            StatusLine.peopleCount(in: screen) != nil && screen.contains("q quit")
        }
    }

    /// The process id of `people` (the wrapper shell's child).
    func peoplePID() throws -> pid_t {
        let shell = try #require(try session.panePID())
        let children = ProcessTable.children(of: shell)
        return try #require(children.first, "the wrapper shell \(shell) has no child process")
    }

    /// Waits for the wrapper's report and returns `people`'s exit status and the terminal modes.
    func waitForEnd(timeout: Duration = .seconds(30)) async throws -> (status: Int, modes: Set<String>, screen: String) {
        let screen = try await session.waitUntil("people to end", timeout: timeout) { $0.contains(Self.endMarker) }
        let line = try #require(screen.split(separator: "\n").first { $0.contains(Self.endMarker) })
        let words = line.split(separator: " ")
        let status = try #require(words.first { $0.hasPrefix("status=") }.flatMap { Int($0.dropFirst(7)) })
        let modes = Set(words.map(String.init).filter { ["icanon", "echo", "isig", "-icanon", "-echo", "-isig"].contains($0) })
        return (status, modes, screen)
    }

    /// The terminal modes a shell expects: canonical input, echo and signal keys on.
    static let restoredModes: Set<String> = ["icanon", "echo", "isig"]
}

/// Reads parent–child links from `/proc`.
enum ProcessTable {
    /// The processes whose parent is `parent`.
    static func children(of parent: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == parent else { return nil }
            return pid
        }
    }
}

/// The C `kill`.
func sendSignal(_ signal: Int32, to pid: pid_t) -> Int32 {
    #if canImport(Musl)
    Musl.kill(pid, signal)
    #else
    Glibc.kill(pid, signal)
    #endif
}

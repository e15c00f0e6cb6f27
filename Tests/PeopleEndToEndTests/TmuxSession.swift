import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One program running in a detached tmux pane of a fixed size, driven and read like a person would.
///
/// Each session has its own tmux server (a unique `-L` socket), so tests never see each other's panes or
/// the developer's own tmux. The pane stays around after the program exits (`remain-on-exit`), so that a
/// test can read its exit status. `kill()` (also run on deinit) stops the server and the program.
///
/// Waiting is always on the screen's state, with a bound: `waitUntil` polls captures until a predicate
/// holds and, on timeout, fails with the last screen so that the log shows what the program showed.
final class TmuxSession {
    /// A tmux command that failed, a wait that timed out, or a program that died too early.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The path of the `tmux` executable on `PATH`, or nil when tmux is not installed.
    static let tmuxPath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }()

    /// Whether tmux is installed.
    static var isAvailable: Bool { tmuxPath != nil }

    /// The server's socket name (`tmux -L`).
    let socket: String
    /// The pane's width in cells.
    let width: Int
    /// The pane's height in cells.
    let height: Int
    /// The screen as of the most recent `capture()`.
    private(set) var lastScreen = ""
    private var killed = false
    private var serverPID: pid_t?
    private var socketPath: String?
    private static let target = "e2e"

    /// Starts `command` (an executable and its arguments) in a new `width`×`height` pane, with
    /// `TERM=xterm-256color` and `LANG=C.UTF-8` plus `environment`.
    init(command: [String], width: Int = 100, height: Int = 30, environment: [String: String] = [:]) throws {
        self.socket = "people-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"
        self.width = width
        self.height = height
        let variables = ["TERM": "xterm-256color", "LANG": "C.UTF-8"].merging(environment) { $1 }
        let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let shellCommand = (["env"] + assignments + command).map(Self.shellQuoted).joined(separator: " ")
        // One tmux invocation, so that remain-on-exit is set before the program can possibly exit.
        try run([
            "start-server", ";",
            "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-s", Self.target, "-x", "\(width)", "-y", "\(height)", shellCommand,
        ])
        let server = try run(["display-message", "-p", "#{pid} #{socket_path}"])
            .trimmingCharacters(in: .newlines)
        if let space = server.firstIndex(of: " ") {
            serverPID = pid_t(server[..<space])
            socketPath = String(server[server.index(after: space)...])
        }
    }

    deinit {
        kill()
    }

    /// Sends tmux key names (`"q"`, `"Enter"`, `"C-c"`, `"Down"`) to the pane.
    func sendKeys(_ keys: String...) throws {
        try run(["send-keys", "-t", Self.target] + keys)
    }

    /// Types `text` literally, character by character.
    func type(_ text: String) throws {
        try run(["send-keys", "-t", Self.target, "-l", text])
    }

    /// The process id of the program the pane runs (its first process).
    func panePID() throws -> pid_t? {
        pid_t(try run(["display-message", "-p", "-t", Self.target, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Resizes the window to each size in turn, as a person dragging a terminal's corner would, sending
    /// up to `perCommand` resizes in one tmux invocation (tmux applies them one by one).
    func resizeWindow(through sizes: [(width: Int, height: Int)], perCommand: Int = 10) throws {
        var start = 0
        while start < sizes.count {
            var arguments: [String] = []
            for size in sizes[start..<min(start + perCommand, sizes.count)] {
                if !arguments.isEmpty { arguments.append(";") }
                arguments += ["resize-window", "-t", Self.target, "-x", "\(size.width)", "-y", "\(size.height)"]
            }
            try run(arguments)
            start += perCommand
        }
    }

    /// The pane's visible text with SGR escape sequences kept (`capture-pane -e`), so colours and
    /// attributes can be checked.
    func captureStyled() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", Self.target])
    }

    /// The pane's visible text: wrapped lines joined, trailing spaces and trailing blank lines removed.
    @discardableResult
    func capture() throws -> String {
        let output = try run(["capture-pane", "-p", "-J", "-t", Self.target])
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var line = Substring(line)
            while line.last == " " { line.removeLast() }
            return String(line)
        }
        while lines.last == "" { lines.removeLast() }
        lastScreen = lines.joined(separator: "\n")
        return lastScreen
    }

    /// The program's exit status once it has exited and been reaped, nil until then; a program killed by
    /// signal N reports 128 + N, as a shell would.
    func paneExitStatus() throws -> Int32? {
        let format = "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}"
        let output = try run(["display-message", "-p", "-t", Self.target, format])
        // "0  " while alive, "1 3 " after exit(3), "1  9" after SIGKILL.
        let fields = output.trimmingCharacters(in: .newlines).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.first == "1" else { return nil }
        if fields.count > 1, let status = Int32(fields[1]) {
            return status
        }
        if fields.count > 2, let signal = Int32(fields[2]) {
            return 128 + signal
        }
        // tmux marks the pane dead when the terminal closes and learns the status when it reaps the
        // child on SIGCHLD. Builds of tmux with libutempter can lose that signal (tmux/tmux#311), which
        // leaves the child a zombie and the status unknown for good; another SIGCHLD makes tmux reap it.
        if let serverPID {
            _ = sendSignal(serverPID, SIGCHLD)
        }
        return nil
    }

    /// Captures the screen every `poll` until `predicate` holds, and returns that screen.
    ///
    /// Throws, with the last screen in the message, when `timeout` passes first or when the program
    /// exits before the predicate holds. Errors thrown by `predicate` pass through unchanged.
    @discardableResult
    func waitUntil(
        _ what: String = "the screen to match",
        timeout: Duration = .seconds(10),
        poll: Duration = .milliseconds(50),
        _ predicate: (String) throws -> Bool
    ) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let screen = try capture()
            if try predicate(screen) {
                return screen
            }
            if let status = try paneExitStatus() {
                // The program may have drawn what we wait for just before it exited: look once more.
                let last = try capture()
                if try predicate(last) {
                    return last
                }
                throw Failure(description: """
                    while waiting for \(what), the program exited with status \(status). Last screen:
                    \(framed(last))
                    """)
            }
            if clock.now >= deadline {
                throw Failure(description: """
                    timed out after \(timeout) waiting for \(what). Last screen:
                    \(framed(screen))
                    """)
            }
            try await Task.sleep(for: poll)
        }
    }

    /// Waits until the program has exited and returns its exit status.
    func waitForExit(timeout: Duration = .seconds(10), poll: Duration = .milliseconds(50)) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let status = try paneExitStatus() {
                return status
            }
            if clock.now >= deadline {
                let screen = (try? capture()) ?? lastScreen
                throw Failure(description: """
                    timed out after \(timeout) waiting for the program to exit. Last screen:
                    \(framed(screen))
                    """)
            }
            try await Task.sleep(for: poll)
        }
    }

    /// Stops the tmux server and with it the program, and removes the server's socket (tmux leaves it
    /// behind). Safe to call more than once.
    func kill() {
        guard !killed else { return }
        killed = true
        _ = try? run(["kill-server"])
        if let socketPath, !socketPath.isEmpty {
            try? FileManager.default.removeItem(atPath: socketPath)
        }
    }

    // MARK: - Private

    /// The screen between rules, so that leading and trailing blanks are visible in a test log.
    private func framed(_ screen: String) -> String {
        let rule = String(repeating: "─", count: width)
        return "┌\(rule)\n" + screen.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "│\($0)" }.joined(separator: "\n") + "\n└\(rule)"
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        guard let tmux = Self.tmuxPath else {
            throw Failure(description: "tmux is not installed")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = nil
        environment["LC_CTYPE"] = nil
        let result = try ChildProcess.run(tmux, ["-L", socket, "-f", "/dev/null"] + arguments, environment: environment)
        guard result.status == 0 else {
            let message = String(decoding: result.errors, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "tmux \(arguments.joined(separator: " ")) failed "
                + "(\(result.statusDescription)): \(message)")
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// The C `kill`, which this class's own `kill()` hides.
    private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.kill(pid, signal)
        #elseif canImport(Musl)
        Musl.kill(pid, signal)
        #else
        Glibc.kill(pid, signal)
        #endif
    }

    private static func shellQuoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

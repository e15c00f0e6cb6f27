import Foundation
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
                throw Failure(description: """
                    while waiting for \(what), the program exited with status \(status). Last screen:
                    \(framed(screen))
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

/// Runs a program to completion with `posix_spawn`, collecting its output.
///
/// Not `Foundation.Process`: a test runs on a dispatch worker thread, which blocks most signals, and
/// `Process` passes that signal mask on. A tmux server started that way ignores SIGCHLD, SIGHUP and
/// SIGTERM, so it never notices that its program exited and cannot be stopped; `waitUntilExit()` can
/// also hang there. Spawning with an empty signal mask and default handlers avoids both.
enum ChildProcess {
    struct Result {
        /// The raw wait status.
        var rawStatus: Int32
        var output: Data
        var errors: Data

        /// The exit status, or -1 when the program was killed by a signal.
        var status: Int32 {
            rawStatus & 0x7F == 0 ? (rawStatus >> 8) & 0xFF : -1
        }

        var statusDescription: String {
            rawStatus & 0x7F == 0 ? "exit status \(status)" : "killed by signal \(rawStatus & 0x7F)"
        }
    }

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Result {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw SpawnError(description: "pipe failed: errno \(errno)") }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw SpawnError(description: "pipe failed: errno \(errno)")
        }
        for fd in outputPipe + errorPipe {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)

        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        // tmux writes little to stderr, so reading stdout to its end first cannot block on a full pipe.
        let output = readToEnd(outputPipe[0])
        let errors = readToEnd(errorPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid failed: errno \(errno)") }
        }
        return Result(rawStatus: status, output: output, errors: errors)
    }

    private static func readToEnd(_ fd: Int32) -> Data {
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}

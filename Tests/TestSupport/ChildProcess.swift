import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion with `posix_spawn`, collecting its standard output, standard error and
/// exit status.
///
/// Not `Foundation.Process`: a test runs on a dispatch worker thread, which blocks most signals, and
/// `Process` passes that signal mask on. A program started that way (tmux, say) ignores SIGCHLD, SIGHUP and
/// SIGTERM, so it never notices that its own children exited and cannot be stopped; `waitUntilExit()` can
/// also hang there. Spawning with an empty signal mask and default handlers avoids both.
///
/// For example:
///
/// ```swift
/// let result = try ChildProcess.run("/usr/bin/env", ["echo", "hello"])
/// #expect(result.status == 0)
/// #expect(result.standardOutput == "hello\n")
/// ```
public enum ChildProcess {
    /// How a program ended and what it wrote.
    public struct Result: Sendable {
        /// The raw wait status.
        public var rawStatus: Int32
        /// Everything the program wrote to standard output.
        public var output: Data
        /// Everything the program wrote to standard error.
        public var errors: Data

        /// The exit status, or -1 when the program was killed by a signal.
        public var status: Int32 {
            rawStatus & 0x7F == 0 ? (rawStatus >> 8) & 0xFF : -1
        }

        /// `exit status N` or `killed by signal N`, for failure messages.
        public var statusDescription: String {
            rawStatus & 0x7F == 0 ? "exit status \(status)" : "killed by signal \(rawStatus & 0x7F)"
        }

        /// Standard output decoded as UTF-8 (invalid bytes replaced).
        public var standardOutput: String { String(decoding: output, as: UTF8.self) }

        /// Standard error decoded as UTF-8 (invalid bytes replaced).
        public var standardError: String { String(decoding: errors, as: UTF8.self) }
    }

    /// A program that could not be started, or a pipe that could not be made.
    public struct SpawnError: Error, CustomStringConvertible {
        /// What failed, and why.
        public let description: String
    }

    /// Runs `executable` (a path) with `arguments` and `environment`, with standard input from
    /// `/dev/null`, and waits for it to exit. Standard output and standard error are read at the same time,
    /// so a program that writes a lot to either never blocks on a full pipe.
    ///
    /// - Throws: ``SpawnError`` when the program cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Result {
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

        let spawned = spawnProcess(executable, arguments: arguments, environment: environment, output: outputPipe[1],
            errors: .descriptor(errorPipe[1]))
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned.error == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(spawned.error)))")
        }
        let pid = spawned.pid
        let (output, errors) = readBoth(outputPipe[0], errorPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid failed: errno \(errno)") }
        }
        return Result(rawStatus: status, output: output, errors: errors)
    }

    /// The first executable named `name` on `PATH`, or nil.
    public static func executablePath(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    /// Reads two pipes to their ends at once (with `poll`), then closes them.
    private static func readBoth(_ first: Int32, _ second: Int32) -> (Data, Data) {
        var collected = [Data(), Data()]
        var descriptors = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0),
            pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while descriptors.contains(where: { $0.fd >= 0 }) {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let fd = descriptors[index].fd
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[index].append(contentsOf: buffer[..<count])
                } else if count < 0 && (errno == EINTR || errno == EAGAIN) {
                    continue
                } else {
                    close(fd)
                    descriptors[index].fd = -1
                }
            }
        }
        for descriptor in descriptors where descriptor.fd >= 0 { close(descriptor.fd) }
        return (collected[0], collected[1])
    }
}

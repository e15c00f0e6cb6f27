import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started with `posix_spawn` that the test talks to while it runs: it reads the program's standard
/// output line by line (waiting on the pipe with `poll`, always with a deadline), can send it a signal at any
/// moment, and collects its exit status. Standard error goes to a file, for failure messages.
///
/// Spawned with an empty signal mask and default handlers, for the reasons given on ``ChildProcess``.
///
/// ```swift
/// let child = try RunningChildProcess(executable: path, arguments: ["store.sqlite"], errorLog: logURL)
/// _ = try child.waitForLines(3, timeout: 5)        // the third progress line
/// child.collect(for: 0.004)                         // a short, random extra wait, still reading the pipe
/// child.signal(SIGKILL)
/// let status = try child.waitForExit(timeout: 10)   // drains the pipe, then reaps the process
/// ```
public final class RunningChildProcess {
    /// The process ID.
    public let pid: pid_t
    /// Complete lines read from standard output so far, without their newlines.
    public private(set) var lines: [String] = []
    /// Whether standard output reached its end (the program closed it or exited).
    public private(set) var reachedEnd = false
    private var outputDescriptor: Int32
    private var partialLine: [UInt8] = []
    private var reapedStatus: Int32?

    /// A program that could not be started, or that did not do what was awaited in time.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// A failure described by `description`.
        public init(description: String) { self.description = description }
    }

    /// Starts `executable` with `arguments`; standard input is `/dev/null` and standard error is appended to
    /// `errorLog`.
    ///
    /// - Throws: ``Failure`` when the pipe cannot be made or the program cannot be started.
    public init(
        executable: String, arguments: [String], errorLog: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        var outputPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw Failure(description: "pipe failed: errno \(errno)") }
        _ = fcntl(outputPipe[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(outputPipe[1], F_SETFD, FD_CLOEXEC)

        let spawned = spawnProcess(executable, arguments: arguments, environment: environment, output: outputPipe[1],
            errors: .appending(path: errorLog.path))
        close(outputPipe[1])
        guard spawned.error == 0 else {
            close(outputPipe[0])
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned.error)))")
        }
        pid = spawned.pid
        outputDescriptor = outputPipe[0]
    }

    deinit {
        if reapedStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        if outputDescriptor >= 0 { close(outputDescriptor) }
    }

    /// Reads whatever standard output has to offer, waiting at most until `deadline` for the first byte.
    /// Returns false when the deadline passed with nothing to read.
    @discardableResult
    private func readOnce(until deadline: ContinuousClock.Instant) -> Bool {
        guard outputDescriptor >= 0 else { return false }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let milliseconds = max(0, Int32(clamping: remaining.components.seconds * 1000
            + remaining.components.attoseconds / 1_000_000_000_000_000))
        var descriptor = pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 { return errno == EINTR }
        if ready == 0 { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(outputDescriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    lines.append(String(decoding: partialLine, as: UTF8.self))
                    partialLine.removeAll(keepingCapacity: true)
                } else {
                    partialLine.append(byte)
                }
            }
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            if !partialLine.isEmpty {
                lines.append(String(decoding: partialLine, as: UTF8.self))
                partialLine.removeAll()
            }
            close(outputDescriptor)
            outputDescriptor = -1
            reachedEnd = true
        }
        return true
    }

    /// Waits until at least `count` lines have been read in total, or standard output ends, or `timeout`
    /// seconds pass. Returns whether `count` lines arrived.
    @discardableResult
    public func waitForLines(_ count: Int, timeout: Double) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while lines.count < count && !reachedEnd && ContinuousClock.now < deadline {
            readOnce(until: deadline)
        }
        return lines.count >= count
    }

    /// Keeps reading standard output for `seconds` (or until it ends): a wait that is spent on the pipe, so
    /// lines written meanwhile are collected.
    public func collect(for seconds: Double) {
        let deadline = ContinuousClock.now + .microseconds(Int(seconds * 1_000_000))
        while !reachedEnd && ContinuousClock.now < deadline {
            readOnce(until: deadline)
        }
    }

    /// Sends `signal` to the program (ignored when it has already been reaped).
    public func signal(_ signal: Int32) {
        guard reapedStatus == nil else { return }
        kill(pid, signal)
    }

    /// Reads standard output to its end, then reaps the program and returns its raw wait status. If the output
    /// does not end within `timeout` seconds, the program is killed (SIGKILL) and ``Failure`` is thrown.
    public func waitForExit(timeout: Double) throws -> Int32 {
        if let reapedStatus { return reapedStatus }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !reachedEnd && ContinuousClock.now < deadline {
            readOnce(until: deadline)
        }
        if !reachedEnd { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid failed: errno \(errno)") }
        }
        reapedStatus = status
        if !reachedEnd {
            throw Failure(description: "the program did not exit within \(timeout) s (killed it)")
        }
        return status
    }

    /// The signal that ended the program, if a signal did.
    public static func terminatingSignal(_ status: Int32) -> Int32? {
        status & 0x7F == 0 ? nil : status & 0x7F
    }

    /// The program's exit status, if it exited.
    public static func exitStatus(_ status: Int32) -> Int32? {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }
}

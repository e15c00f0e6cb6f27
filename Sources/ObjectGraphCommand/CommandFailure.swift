import ArgumentParser
import Foundation

/// An error the tool reports to the user: one message saying what failed, where and why.
///
/// Argument Parser prints it on standard error as `Error: <message>` and exits with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// The whole message.
    let description: String

    /// Creates a failure with `message`.
    init(_ message: String) {
        description = message
    }
}

/// Standard error as a text stream, for diagnostics that must not mix with a command's output.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// Prints `message` followed by a newline on standard error.
func printError(_ message: String) {
    var stream = StandardError()
    print(message, to: &stream)
}

import CSQLite

/// Holds the stop test of ``SQLiteConnection/interruptible(every:stopWhen:_:)`` for SQLite's progress callback.
private final class StopTest {
    let shouldStop: () -> Bool

    init(_ shouldStop: @escaping () -> Bool) { self.shouldStop = shouldStop }
}

extension SQLiteConnection {
    /// Runs `body` with SQLite asking `shouldStop` every `instructions` virtual-machine instructions; once it
    /// answers true, the statement running fails with ``SQLiteError/interrupt`` (and so does every statement
    /// `body` starts after that). For long queries whose answer nobody waits for any more — a filter typed over
    /// — so that they stop within a moment rather than reading to the end.
    ///
    /// `shouldStop` runs on this thread, inside SQLite, and must not use the connection. The handler is removed
    /// when `body` returns or throws. With `instructions` 0 there is no handler: `body` just runs.
    public func interruptible<T>(
        every instructions: Int32, stopWhen shouldStop: () -> Bool, _ body: () throws -> T
    ) rethrows -> T {
        guard instructions > 0, let db = handle.db else { return try body() }
        return try withoutActuallyEscaping(shouldStop) { escapable in
            let test = StopTest(escapable)
            return try withExtendedLifetime(test) {
                sqlite3_progress_handler(db, instructions, askStopTest, Unmanaged.passUnretained(test).toOpaque())
                defer { sqlite3_progress_handler(db, 0, nil, nil) }
                return try body()
            }
        }
    }
}

private func askStopTest(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<StopTest>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
}

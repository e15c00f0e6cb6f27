import CCursesShim

/// Ending a process the way a signal would, after a terminal app has cleaned up.
public enum SignalTermination {
    /// Ends the process by `signal` with its default action (restored and unblocked first), so the
    /// parent sees "killed by `signal`" and a shell reports status 128 + `signal`. Call it after
    /// restoring the terminal in a handler for SIGINT, SIGTERM, SIGHUP or SIGQUIT. If the default action
    /// of `signal` does not end the process, exits with status 128 + `signal`.
    public static func end(by signal: Int32) -> Never {
        cs_die_by_signal(signal)
    }
}

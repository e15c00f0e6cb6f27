import Foundation

/// Where a spawned program's standard error goes.
enum StandardErrorTarget {
    /// Onto this (pipe) descriptor.
    case descriptor(Int32)
    /// Appended to this file.
    case appending(path: String)
}

/// Starts `executable` with standard input from `/dev/null`, standard output on `output`, standard error as
/// `errors` says, every signal at its default disposition and none blocked — the one `posix_spawn` set-up the
/// test helpers share.
///
/// - Returns: the child's process ID, and `posix_spawn`'s result (0, or an error number).
func spawnProcess(
    _ executable: String, arguments: [String], environment: [String: String], output: Int32,
    errors: StandardErrorTarget
) -> (pid: pid_t, error: Int32) {
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
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    switch errors {
    case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, 2)
    case .appending(let path): posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    }

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
    return (pid, spawned)
}

#ifndef CFAULTVFS_H
#define CFAULTVFS_H
// A fault-injecting SQLite VFS for tests (SQLite's own I/O-error testing method, "How SQLite Is Tested" §3.2).
//
// `cfaultvfs_install()` registers a VFS named "objectgraph-fault" that wraps the default VFS ("unix") and makes it
// the process's default, so every connection opened afterwards goes through it. While disarmed it only forwards.
// While armed, it counts the xWrite/xTruncate calls (or the xSync calls, or the xRead calls) made on files whose path starts with a
// given prefix, and makes the k-th one (counting from 0) fail with a chosen result code, once (transient) or
// that one and every later one (persistent). Files outside the prefix are never touched, so tests of other
// stores running in parallel in the same process are unaffected.

/// Which operations an armed fault counts.
typedef enum {
    /// `xWrite` and `xTruncate`.
    CFAULTVFS_WRITE = 0,
    /// `xSync`.
    CFAULTVFS_SYNC = 1,
    /// `xRead` (reads SQLite's page cache answers never reach the file, so arm it before a fresh read).
    CFAULTVFS_READ = 2,
} cfaultvfs_operation;

/// Registers the VFS and makes it the default; safe to call more than once. Returns an SQLite result code.
int cfaultvfs_install(void);

/// Arms a fault: the operation number `countdown` (0 = the first one from now) of kind `operation` on a file
/// whose path starts with `path_prefix` fails with `result_code`; when `persistent` is non-zero, every later
/// one fails too. Resets the counters.
void cfaultvfs_arm(const char *path_prefix, cfaultvfs_operation operation, int countdown, int persistent,
    int result_code);

/// Disarms the fault (the counters keep their values until the next arm).
void cfaultvfs_disarm(void);

/// How many operations failed because of the fault since it was last armed.
int cfaultvfs_faults_fired(void);

/// How many matching operations were seen since the fault was last armed.
int cfaultvfs_operations_seen(void);

#endif

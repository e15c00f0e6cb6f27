#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
// Debian's libsqlite3 is built with the preupdate hook and the session extension; sqlite3.h only
// declares them when the includer asks for them.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#define SQLITE_ENABLE_SESSION 1
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline int csqlite_bind_text_transient(sqlite3_stmt *s, int i, const char *z, int n) {
    return sqlite3_bind_text(s, i, z, n, SQLITE_TRANSIENT);
}
static inline int csqlite_bind_blob_transient(sqlite3_stmt *s, int i, const void *p, int n) {
    return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}
// 64-bit lengths, so a value longer than INT_MAX bytes reaches SQLite's own length check
// (SQLITE_TOOBIG) instead of wrapping around in a narrowing conversion on our side.
static inline int csqlite_bind_text64_transient(sqlite3_stmt *s, int i, const char *z, sqlite3_uint64 n) {
    return sqlite3_bind_text64(s, i, z, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static inline int csqlite_bind_blob64_transient(sqlite3_stmt *s, int i, const void *p, sqlite3_uint64 n) {
    return sqlite3_bind_blob64(s, i, p, n, SQLITE_TRANSIENT);
}
// Results of application-defined SQL functions, copied by SQLite before the call returns.
static inline void csqlite_result_text64_transient(sqlite3_context *c, const char *z, sqlite3_uint64 n) {
    sqlite3_result_text64(c, z, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static inline void csqlite_result_blob64_transient(sqlite3_context *c, const void *p, sqlite3_uint64 n) {
    sqlite3_result_blob64(c, p, n, SQLITE_TRANSIENT);
}
// sqlite3_db_config is variadic, which Swift cannot call.
static inline int csqlite_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}
#endif

import Foundation

/// The PostgreSQL server the tests use: `OBJECTGRAPH_TEST_POSTGRES` (a libpq connection URI, which `.ci/postgres.sh`
/// exports for a throwaway cluster). Without it the PostgreSQL tests are skipped, saying why.
enum PostgresTestServer {
    static let uri: String? = ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    static let skipMessage = "OBJECTGRAPH_TEST_POSTGRES is not set: PostgreSQL store tests skipped "
        + "(source .ci/postgres.sh, or set it to postgresql://user@host:port/db of a server you may write to)"
}

import Testing

@testable import SQLiteStorage

/// ``SQLiteConnection/interruptible(every:stopWhen:_:)``: a query stops once the stop test says so, and only then.
@Suite struct SQLiteInterruptionTests {
    /// Counts to `limit` in SQL: many virtual-machine instructions, no table.
    static func counting(to limit: Int) -> String {
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(limit)) SELECT count(*) FROM c"
    }

    @Test func aQueryStopsWhenTheStopTestSaysSo() throws {
        let connection = try SQLiteConnection.inMemory()
        var asked = 0
        do {
            _ = try connection.interruptible(every: 1000, stopWhen: {
                asked += 1
                return asked > 3
            }) { try connection.scalar(Self.counting(to: 100_000_000)) }
            Issue.record("the query ran to its end")
        } catch let error as SQLiteError {
            #expect(error.code & 0xFF == SQLiteError.interrupt, "\(error)")
        }
        #expect(asked == 4)
        // The handler is gone afterwards, and a stop test that never says stop changes nothing.
        #expect(try connection.scalar(Self.counting(to: 20_000)) == .integer(20_000))
        let answer = try connection.interruptible(every: 100, stopWhen: { false }) {
            try connection.scalar(Self.counting(to: 20_000))
        }
        #expect(answer == .integer(20_000))
        #expect(asked == 4)
    }
}

import CLibPQ
import ObjectGraph

extension PostgresConnection {
    /// One row of a result, read where libpq keeps it: a field's text is made into a Swift string only when asked
    /// for, and no array of the row's texts is built.
    struct ResultRow {
        fileprivate let result: OpaquePointer
        fileprivate let row: Int32

        /// The text of `field`, or nil for NULL (invalid UTF-8 repaired, as `String(cString:)` does).
        func text(_ field: Int) -> String? {
            let column = Int32(field)
            guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
            let bytes = UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column)))
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Runs `sql` like ``execute(_:_:)`` and hands each row of the result to `body` in order, in place.
    ///
    /// Reading a store's rows into its replica, ``execute(_:_:)``'s copy of every field as a string in an array per
    /// row was a quarter of a million people's allocations; the rows are decoded straight from the result instead.
    func forEachRow(_ sql: String, _ parameters: [String?] = [], _ body: (ResultRow) -> Void) throws(ObjectGraphError) {
        try withResult(sql, parameters) { result in
            for row in 0..<PQntuples(result) { body(ResultRow(result: result, row: row)) }
        }
    }
}

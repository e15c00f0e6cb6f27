import SQLiteStorage

extension SQLiteStore {
    /// Runs SQLite work, reporting any failure as an ``ObjectGraphError``.
    func sqlite<T>(_ body: () throws -> T) throws(ObjectGraphError) -> T {
        do {
            return try body()
        } catch let error as ObjectGraphError {
            throw error
        } catch let error as SQLiteError {
            throw error.code == SQLiteError.notADatabase
                ? .notAnObjectGraphStore(path: path, reason: "the file is not an SQLite database") : .sqlite(error)
        } catch {
            throw .sqlite(SQLiteError(code: SQLiteError.genericError, message: "\(error)", path: path))
        }
    }
}

import Foundation
import SQLiteStorage

/// The SQL functions Core Data registers on its connections and its triggers call, registered on ours so that
/// writes to a store Core Data wrote do not fail with "no such function".
///
/// Core Data keeps derived attributes (`pages.@count`, `lowercase:(name)`, …) with triggers named
/// `Z_DA_<TABLE>_<Entity>_<attribute>_…`: after updating the derived column, each runs a `SELECT` that hands the
/// affected row (target table name, `Z_ENT`, `Z_PK`, attribute name, new value) to
/// `NSCoreDataDATriggerUpdatedAffectedObjectValue` or `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`, so
/// that Core Data can refresh objects in memory; the trigger's own `UPDATE` does the work in SQL. Here these
/// return NULL and change nothing: the column is right either way (`apple-file-formats.md` §5, checked on a
/// real store). Photos-style stores call `NSCoreDataTriggerUpdateAffectedObjectValue` with the same five
/// arguments. `now()` derivations call `NSCoreDataNow()`, which returns the time as Core Data stores dates:
/// seconds since 2001-01-01 00:00 UTC.
enum CoreDataTriggerFunctions {
    /// The five-argument notification functions, which do nothing here.
    static let notificationFunctions = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue",
    ]

    /// Registers the functions on `connection`.
    static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        for name in notificationFunctions {
            try connection.registerFunction(name: name, argumentCount: 5, deterministic: false, innocuous: true) { _ in
                .null
            }
        }
        try connection.registerFunction(name: "NSCoreDataNow", argumentCount: 0, deterministic: false, innocuous: true) {
            _ in .real(Date().timeIntervalSinceReferenceDate)
        }
    }
}

import Foundation
import ObjectGraph

/// A person read by the raw baseline: a heap object per row, every column decoded (as a fetch does).
final class RawPerson {
    let key: Int64, entity: Int64, version: Int64, age: Int64, createdAt: Double
    let city: String, email: String, firstName: String, lastName: String, section: String
    init(_ statement: RawStatement) {
        key = statement.int(0); entity = statement.int(1); version = statement.int(2); age = statement.int(3)
        city = statement.text(5); createdAt = statement.double(6); email = statement.text(7)
        firstName = statement.text(8); lastName = statement.text(9); section = statement.text(12)
    }
}

/// Workload 2: fetches from a filled store, each with its raw twin.
public enum FetchWorkload {
    /// The substring the count filter looks for.
    public static let needle = "er"

    static let orderedSelect = """
        SELECT Z_PK, Z_ENT, Z_OPT, ZAGE, ZAVATAR, ZCITY, ZCREATEDAT, ZEMAIL, ZFIRSTNAME, ZLASTNAME, ZNICKNAME, \
        ZPHONE, ZSECTION FROM ZPERSON ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK
        """

    /// Raw: every row in list order, materialized. Returns the row count.
    public static func rawObjects(_ connection: RawConnection) throws -> Int {
        let statement = try connection.prepare(orderedSelect)
        var people: [RawPerson] = []
        while statement.step() { people.append(RawPerson(statement)) }
        return people.count
    }

    /// Raw: primary keys in list order.
    public static func rawIDs(_ connection: RawConnection) throws -> Int {
        let statement = try connection.prepare("SELECT Z_PK FROM ZPERSON ORDER BY ZLASTNAME, ZFIRSTNAME, Z_PK")
        var keys: [Int64] = []
        while statement.step() { keys.append(statement.int(0)) }
        return keys.count
    }

    /// Raw: count with `LIKE '%er%'` (SQLite's LIKE is ASCII case-insensitive; the data is ASCII).
    public static func rawCount(_ connection: RawConnection) throws -> Int {
        Int(try connection.int("SELECT count(*) FROM ZPERSON WHERE ZLASTNAME LIKE '%\(needle)%'"))
    }

    /// ObjectGraph: every person in list order with property values (not faults), in a fresh context — or,
    /// `throughParent`, in a fresh child of a fresh root context with no unsaved changes (writer-main-worker's
    /// view context reads this way).
    public static func objects(_ coordinator: PersistentStoreCoordinator, throughParent: Bool = false) throws -> Int {
        let context = freshContext(coordinator, throughParent: throughParent)
        return try context.performAndWait {
            var request = PersonModel.listRequest()
            request.returnsObjectsAsFaults = false
            return try context.fetch(request).count
        }
    }

    /// ObjectGraph: object IDs in list order (a controller's first fetch reads this way, with its sort keys).
    public static func ids(_ coordinator: PersistentStoreCoordinator, throughParent: Bool = false) throws -> Int {
        let context = freshContext(coordinator, throughParent: throughParent)
        return try context.performAndWait { try context.fetchObjectIDs(PersonModel.listRequest()).count }
    }

    /// ObjectGraph: count with `lastName CONTAINS[cd] "er"`.
    public static func count(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = freshContext(coordinator)
        return try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: PersonModel.entityName)
            request.predicate = try FetchPredicate(format: "lastName CONTAINS[cd] %@", needle)
            return try context.count(for: request)
        }
    }

    /// ObjectGraph: the count of everyone, in a fresh context holding one unsaved new person (the store's IDs
    /// are read and the unsaved person judged in memory).
    public static func countWithUnsavedInsert(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = freshContext(coordinator)
        return try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: PersonModel.entityName)
            return try context.count(for: PersonModel.listRequest())
        }
    }

    /// ObjectGraph: everyone's IDs in list order, in a fresh context holding one unsaved new person.
    public static func idsWithUnsavedInsert(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = freshContext(coordinator)
        return try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: PersonModel.entityName)
            return try context.fetchObjectIDs(PersonModel.listRequest()).count
        }
    }

    static func freshContext(_ coordinator: PersistentStoreCoordinator, throughParent: Bool = false)
        -> ManagedObjectContext
    {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        guard throughParent else { return context }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        return child
    }
}

import Foundation
import ObjectGraph

/// The benchmark's person as a typed class (as `objectgraph codegen` writes it), for `#Predicate`. The
/// model does not register it: the typed predicate is translated into a request for plain objects, so
/// that both sides of the comparison fetch exactly the same way.
public final class TypedBenchPerson: ManagedObject {
    @Attribute("age") public var age: Int64
    @Attribute("city") public var city: String
    @Attribute("lastName") public var lastName: String
    @Attribute("firstName") public var firstName: String
    override public class var entityName: String { PersonModel.entityName }
}

/// Workload 2's typed line: the same fetch with a `#Predicate` and `SortDescriptor`s, translated in every
/// run, against its format-string twin parsed in every run (the baseline is the twin, not raw SQLite).
public enum TypedFetchWorkload {
    /// The city both predicates look for.
    public static let city = "Berlin"

    /// ObjectGraph with a typed predicate: people of `city` aged 30 or more, with property values, in list order.
    public static func typed(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = FetchWorkload.freshContext(coordinator)
        let city = city
        return try context.performAndWait {
            let typed = try FetchRequest<TypedBenchPerson>(
                predicate: #Predicate { $0.age >= 30 && $0.city == city },
                sortBy: [SortDescriptor(\.lastName), SortDescriptor(\.firstName)])
            var request = FetchRequest<ManagedObject>(
                entityName: typed.entityName, predicate: typed.predicate, sortCriteria: typed.sortCriteria)
            request.returnsObjectsAsFaults = false
            return try context.fetch(request).count
        }
    }

    /// The same with the format-string twin.
    public static func format(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = FetchWorkload.freshContext(coordinator)
        return try context.performAndWait {
            var request = FetchRequest<ManagedObject>(
                entityName: PersonModel.entityName,
                predicate: try FetchPredicate(format: "age >= 30 AND city == %@", city),
                sortCriteria: [SortCriterion("lastName"), SortCriterion("firstName")])
            request.returnsObjectsAsFaults = false
            return try context.fetch(request).count
        }
    }
}

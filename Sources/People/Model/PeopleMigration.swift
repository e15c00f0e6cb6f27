import Foundation
import ObjectGraph

/// The post-migration step of the entity-split recipe: model version `People 2` keeps `Person` and adds its
/// sub-entities `Adult` and `Child`; opening an older store migrates it lightweight (every person stays a plain
/// `Person`), then ``splitPeopleByAge(in:adultAge:batchSize:)`` moves each plain person into `Adult` or
/// `Child` by age.
///
/// Lightweight migration cannot do this itself: it never loads objects, and which entity a row belongs to is
/// decided by its values. Moving is an ordinary edit (insert the new object with every value and
/// relationship, delete the old one), so it runs in a context, in batches, and can be resumed: people already
/// split are not plain `Person`s any more and are skipped. The list keeps working throughout, since it fetches
/// `Person` with its sub-entities.
public enum PeopleMigration {
    /// What a split did.
    public struct SplitReport: Sendable, Equatable {
        /// People moved into `Adult`.
        public var adults = 0
        /// People moved into `Child`.
        public var children = 0
    }

    /// Moves every plain `Person` into `Adult` (age ≥ `adultAge`) or `Child`, keeping every attribute value,
    /// the company and the tags; saves after every `batchSize` people. Call it on the context's queue.
    ///
    /// - Throws: ``ObjectGraphError`` from fetching or saving; what was saved before stays split.
    @discardableResult
    public static func splitPeopleByAge(in context: ManagedObjectContext, adultAge: Int64 = 18, batchSize: Int = 500)
        throws(ObjectGraphError) -> SplitReport
    {
        var report = SplitReport()
        var request = FetchRequest<Person>(entityName: PeopleModel.entityName, sortCriteria: [SortCriterion("lastName")],
            fetchLimit: max(1, batchSize))
        request.includesSubentities = false
        request.includesPendingChanges = false
        while true {
            let batch = try context.fetch(request)
            if batch.isEmpty { break }
            for person in batch {
                let isAdult = person.age >= adultAge
                let moved = try context.insertNewObject(forEntityName: isAdult ? "Adult" : "Child")
                for attribute in person.entity.attributes where !attribute.isTransient {
                    moved.setValue(person.value(forKey: attribute.name), forKey: attribute.name)
                }
                moved.setRelatedObject(person.relatedObject(forKey: "company"), forKey: "company")
                moved.setRelatedObjects(person.relatedObjects(forKey: "tags"), forKey: "tags")
                context.delete(person)
                if isAdult { report.adults += 1 } else { report.children += 1 }
            }
            try context.save()
            context.reset()
        }
        return report
    }
}

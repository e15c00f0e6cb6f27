import Foundation
import ObjectGraph

/// A company people work for (the model's `Company` entity).
public final class Company: ManagedObject {
    /// The company's name.
    @Attribute("name") public var name: String
    /// The people who work here (inverse of `Person.company`; deleting the company leaves them without one).
    @ToMany("employees") public var employees: Set<Person>

    /// Adds `person` to the company's employees, taking them from any previous company.
    public func addToEmployees(_ person: Person) { addRelatedObject(person, forKey: "employees") }
    /// Removes `person` from the company's employees.
    public func removeFromEmployees(_ person: Person) { removeRelatedObject(person, forKey: "employees") }
}

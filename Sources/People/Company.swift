import Foundation
import ObjectGraph

/// A company people work for (the model's `Company` entity). Its `employees` relationship arrives with
/// relationships in the object graph.
public final class Company: ManagedObject {
    /// The company's name.
    @Attribute("name") public var name: String
}

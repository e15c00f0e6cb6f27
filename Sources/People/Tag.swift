import Foundation
import ObjectGraph

/// A label people can carry (the model's `Tag` entity, many-to-many with `Person`). Its `people`
/// relationship arrives with relationships in the object graph.
public final class Tag: ManagedObject {
    /// The tag's text, unique among tags.
    @Attribute("name") public var name: String
}

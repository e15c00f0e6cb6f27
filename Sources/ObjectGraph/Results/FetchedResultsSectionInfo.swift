/// One section of a fetched-results controller: the counterpart of `NSFetchedResultsSectionInfo`.
public struct FetchedResultsSectionInfo: CustomStringConvertible {
    /// The section's name: the section key path's value shared by its objects ("" for nil).
    public let name: String
    /// The title shown for the section in an index (by default the capitalised first letter of the name).
    public let indexTitle: String?
    let slice: ArraySlice<ResultsEntry>

    /// How many objects the section holds (without touching them).
    public var numberOfObjects: Int { slice.count }

    /// The section's objects, in order.
    public var objects: [ManagedObject] { slice.map(\.object) }

    public var description: String { "<Section \"\(name)\" (\(numberOfObjects) objects)>" }
}

/// One fetched object as the controller keeps it: the object plus the sort keys and section name it was
/// placed by, so the controller can find it again after its values change.
struct ResultsEntry {
    let object: ManagedObject
    let keys: [AttributeValue]
    let sectionName: String
}

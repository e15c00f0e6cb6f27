/// One section of a fetched-results controller: the counterpart of `NSFetchedResultsSectionInfo`.
public struct FetchedResultsSectionInfo: CustomStringConvertible {
    /// The section's name: the section naming's value shared by its objects ("" for nil).
    public let name: String
    /// The title shown for the section in an index (by default the capitalised first letter of the name).
    public let indexTitle: String?
    /// How many objects the section holds (without touching them).
    public let numberOfObjects: Int
    private let loadObjects: () -> [ManagedObject]

    init(name: String, indexTitle: String?, numberOfObjects: Int, objects: @escaping () -> [ManagedObject]) {
        self.name = name
        self.indexTitle = indexTitle
        self.numberOfObjects = numberOfObjects
        self.loadObjects = objects
    }

    /// The section's objects, in order (loaded when asked for; a batched controller loads them by batch).
    public var objects: [ManagedObject] { loadObjects() }

    public var description: String { "<Section \"\(name)\" (\(numberOfObjects) objects)>" }
}

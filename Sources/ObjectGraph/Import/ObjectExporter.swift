import Foundation

/// Writes the objects a fetch request matches through an ``ExportWriter``, fetching them a batch at a time
/// (``BatchedFetchResults``) and letting each batch go before the next, so that memory holds one batch and the
/// matching objects' IDs whatever the number of objects. Large values a server keeps apart (a PostgreSQL store's
/// `Z_EXTERNALDATA`) are read a batch of objects at a time, not one round trip each.
///
/// The columns are the stored (non-transient) attributes of `entity`, in model order; objects of
/// sub-entities are written with those.
public struct ObjectExporter {
    /// The context fetched in (used on its queue).
    public let context: ManagedObjectContext
    /// The entity whose attributes are written.
    public let entity: EntityDescription
    /// Which objects, in which order.
    public let request: FetchRequest<ManagedObject>
    /// How many objects are made at a time.
    public let batchSize: Int

    /// An exporter of `request`'s objects.
    public init(context: ManagedObjectContext, entity: EntityDescription, request: FetchRequest<ManagedObject>,
        batchSize: Int = 1000)
    {
        self.context = context
        self.entity = entity
        self.request = request
        self.batchSize = max(1, batchSize)
    }

    /// The keys written: the stored attributes of ``entity``.
    public var keys: [String] { entity.attributes.filter { !$0.isTransient }.map(\.name) }

    /// Writes every matching object in `format`, handing the bytes to `sink`; returns how many objects.
    public func write(format: ImportFileReader.Format, to sink: @escaping (Data) throws -> Void) throws -> Int {
        let keys = keys
        var request = request
        request.fetchBatchSize = batchSize
        let writer = ExportWriter(format: format, keys: keys, sink: sink)
        let count = try context.performAndWait { () throws -> Int in
            let results = try context.fetchBatched(request, retainedBatchCount: 1)
            var values = [AttributeValue](repeating: .null, count: keys.count)
            for index in results.indices {
                if index % batchSize == 0 {
                    // Values a server keeps apart (PostgreSQL) are read a batch at a time, not a round trip each.
                    ManagedObject.prefetchStoredValues(of: results[index..<Swift.min(index + batchSize, results.count)])
                }
                let object = results[index]
                for (column, key) in keys.enumerated() { values[column] = try object.loadValue(forKey: key) }
                try writer.write(values)
            }
            return results.count
        }
        try writer.finish()
        return count
    }
}

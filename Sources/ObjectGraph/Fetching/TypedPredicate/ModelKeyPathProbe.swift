import Foundation
import Synchronization

/// Finds the model property names behind Swift key paths such as `\Person.company?.name`.
///
/// Key paths to `@Attribute`, `@ToOne`, `@ToMany` and `@OrderedToMany` properties are computed properties
/// whose names Swift does not keep at run time. So the probe applies the key path to a stand-in object
/// (an unattached instance of the class, on a model-less entity) while the property wrappers report each
/// key they are asked for instead of reading storage; a to-one wrapper answers with a stand-in of its
/// destination class, so a chain of to-one relationships is followed to its end. A key path that reads no
/// wrapper, or several that are not one chain (a computed property combining two attributes), has no
/// model name. Answers are cached per key path: one probe per key path per process.
enum ModelKeyPathProbe {
    /// What kind of property a wrapper stands for.
    enum Kind: Sendable, Hashable {
        case attribute
        case toOne
        case toMany
        case orderedToMany
        /// `\.objectID`: the object itself, compared by identity.
        case objectID
    }

    /// One property read through a key path.
    struct Access: Sendable, Hashable {
        /// The property's name in the model.
        var key: String
        /// The kind of wrapper.
        var kind: Kind
    }

    /// The chain of properties a key path reads, or nil when it reads no model property or several
    /// properties that are not one chain.
    static func accesses(of keyPath: AnyKeyPath, rootClass: ManagedObject.Type) -> [Access]? {
        let cacheKey = CacheKey(keyPath: keyPath, root: ObjectIdentifier(rootClass))
        if let cached = cache.withLock({ $0[cacheKey] }) { return cached.accesses }
        let probe = makeStandIn(of: rootClass)
        let recorder = Recorder(root: probe)
        activeProbes.add(1, ordering: .relaxed)
        let value = $current.withValue(recorder) {
            probe[keyPath: keyPath]
        }
        activeProbes.subtract(1, ordering: .relaxed)
        var result = recorder.chain()
        if result == nil, let id = value as? ManagedObjectID, id == probe.objectID {
            result = [Access(key: "", kind: .objectID)]
        }
        cache.withLock { $0[cacheKey] = Cached(accesses: result) }
        return result
    }

    // MARK: Called by the property wrappers

    /// Whether any probe is running: one relaxed atomic load, so that wrappers pay almost nothing otherwise.
    @inline(__always)
    static var isProbing: Bool { activeProbes.load(ordering: .relaxed) > 0 }

    /// Records that `key` was read from `object` when `object` is a stand-in of the probe running on this
    /// thread; returns false (read normally) otherwise.
    static func record(_ object: ManagedObject, key: String, kind: Kind) -> Bool {
        guard let recorder = current, recorder.isStandIn(object) else { return false }
        recorder.record(object, Access(key: key, kind: kind), destination: nil)
        return true
    }

    /// Records a to-one read and returns a stand-in of the destination class, so that the key path goes on;
    /// nil (read normally) when `object` is not a stand-in.
    static func recordToOne<Destination: ManagedObject>(
        _ object: ManagedObject, key: String, destination: Destination.Type
    ) -> Destination?? {
        guard let recorder = current, recorder.isStandIn(object) else { return nil }
        let standIn = makeStandIn(of: Destination.self)
        recorder.record(object, Access(key: key, kind: .toOne), destination: standIn)
        return .some(standIn as? Destination)
    }

    /// A value of `Value` for an attribute read by a probe: the first placeholder of some attribute type
    /// that converts (not nil, so that a computed property unwrapping it does not trap), else its nil
    /// stand-in. Nil when the type accepts none of them.
    static func placeholder<Value: AttributeValueConvertible>(_: Value.Type) -> Value? {
        for candidate in placeholders {
            if let value = Value(attributeValue: candidate) { return value }
        }
        return Value.valueForNil
    }

    // MARK: Private

    private static let placeholders: [AttributeValue] = [
        .string(""), .integer(0), .double(0), .boolean(false), .date(Date(timeIntervalSinceReferenceDate: 0)),
        .binary(Data()), .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        .decimal(0),
    ] + (URL(string: "about:blank").map { [AttributeValue.uri($0)] } ?? []) + [.null]

    private struct CacheKey: Hashable, @unchecked Sendable {
        // Key paths are immutable and thread-safe; AnyKeyPath is not marked Sendable on every platform.
        let keyPath: AnyKeyPath
        let root: ObjectIdentifier
    }

    private struct Cached: Sendable {
        let accesses: [Access]?
    }

    private static let cache = Mutex<[CacheKey: Cached]>([:])
    private static let activeProbes = Atomic<Int>(0)

    @TaskLocal private static var current: Recorder?

    /// An unattached instance of `type` on an entity with no properties: its wrappers are never asked to
    /// read storage while the probe runs.
    private static func makeStandIn(of type: ManagedObject.Type) -> ManagedObject {
        type.init(entity: EntityDescription(name: type.entityName, attributes: []), insertInto: nil)
    }

    /// The reads of one probe. Used on one thread only (the probe's), inside `withValue`.
    private final class Recorder: @unchecked Sendable {
        private struct Entry {
            var object: ObjectIdentifier
            var access: Access
        }
        private var standIns: [ManagedObject]
        private var entries: [Entry] = []
        private var destinations: [ObjectIdentifier: ObjectIdentifier] = [:]

        init(root: ManagedObject) { standIns = [root] }

        func isStandIn(_ object: ManagedObject) -> Bool { standIns.contains { $0 === object } }

        func record(_ object: ManagedObject, _ access: Access, destination: ManagedObject?) {
            entries.append(Entry(object: ObjectIdentifier(object), access: access))
            if let destination {
                standIns.append(destination)
                destinations[ObjectIdentifier(object)] = ObjectIdentifier(destination)
            }
        }

        /// The reads when they form one chain from the root: each read on the object the previous to-one
        /// read returned.
        func chain() -> [Access]? {
            guard let first = entries.first, let root = standIns.first, first.object == ObjectIdentifier(root) else {
                return nil
            }
            var current = first.object
            for (index, entry) in entries.enumerated() {
                if index > 0 {
                    guard let next = destinations[current], entry.object == next,
                        entries[index - 1].access.kind == .toOne
                    else { return nil }
                    current = next
                }
            }
            return entries.map(\.access)
        }
    }
}

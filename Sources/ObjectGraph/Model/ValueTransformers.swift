import Foundation

/// A named, two-way conversion between a Swift value and the bytes a Transformable attribute stores — what Core
/// Data's `NSValueTransformer` is for an attribute whose model names it (`valueTransformerName`).
///
/// Foundation on Linux has no `ValueTransformer`, so transformers are registered here, by the name the model
/// gives (``ValueTransformers/register(_:forName:)``), and used through
/// ``ManagedObject/transformedValue(forKey:)`` and ``ManagedObject/setTransformedValue(_:forKey:)``. The direction
/// is Core Data's for a custom transformer: the value is transformed into the stored data, and the stored data
/// reverse-transformed into the value.
public protocol AttributeValueTransformer: Sendable {
    /// The bytes to store for `value` (Core Data's `transformedValue(_:)`). Throw for a value of a type this
    /// transformer does not take.
    func data(for value: any Sendable) throws -> Data
    /// The value stored bytes stand for (Core Data's `reverseTransformedValue(_:)`). Throw for bytes it cannot read.
    func value(from data: Data) throws -> any Sendable
}

/// A transformer for any `Codable` value, stored as JSON: the usual way to keep a small Swift struct in one
/// attribute (``ValueTransformers/register(_:forName:)`` it under the model's transformer name).
public struct CodableValueTransformer<Value: Codable & Sendable>: AttributeValueTransformer {
    /// A transformer of `Value`s.
    public init(_ type: Value.Type = Value.self) {}

    /// Why a value could not be transformed.
    public struct WrongType: Error, CustomStringConvertible {
        /// The type that was given.
        public let given: String
        public var description: String { "a \(given) is not a \(Value.self)" }
    }

    public func data(for value: any Sendable) throws -> Data {
        guard let value = value as? Value else { throw WrongType(given: "\(type(of: value))") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    public func value(from data: Data) throws -> any Sendable { try JSONDecoder().decode(Value.self, from: data) }
}

/// The process-wide table of value transformers by name (Core Data's `ValueTransformer.setValueTransformer(_:
/// forName:)`). Register each transformer a model names before its objects' transformed values are read or set.
/// Thread-safe.
public enum ValueTransformers {
    private static let table = Locked<[String: any AttributeValueTransformer]>([:])

    /// The names of Core Data's default secure and keyed unarchivers: an attribute naming one of them (or none)
    /// holds a keyed archive, read and written as an ``ArchivedValue`` without registering anything.
    public static let archiveTransformerNames: Set<String> = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSSecureUnarchiveFromDataTransformerName",
        "NSKeyedUnarchiveFromData", "NSKeyedUnarchiveFromDataTransformerName",
    ]

    /// Registers `transformer` under `name`, replacing any transformer registered under it before.
    public static func register(_ transformer: some AttributeValueTransformer, forName name: String) {
        table.withLock { $0[name] = transformer }
    }

    /// Removes the transformer registered under `name`, if any.
    public static func unregister(name: String) {
        table.withLock { $0[name] = nil }
    }

    /// The transformer registered under `name`, or nil.
    public static func transformer(named name: String) -> (any AttributeValueTransformer)? {
        table.withLock { $0[name] }
    }

    /// The names transformers are registered under, sorted.
    public static var names: [String] { table.withLock { $0.keys.sorted() } }
}

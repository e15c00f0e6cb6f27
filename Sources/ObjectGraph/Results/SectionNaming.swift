/// How a fetched-results controller names each object's section.
///
/// Core Data takes a key path; ObjectGraph also takes a name computed in Swift from stored values, which
/// the controller can evaluate from a row without making an object (so batched controllers of a million
/// rows stay cheap), and which it re-evaluates whenever one of the keys it reads changes.
///
/// ```swift
/// // Sections by the folded initial of the last name; "#" for anything else.
/// let naming = SectionNaming.derived(from: ["lastName"]) { values in
///     StringFolding.initial(values[0].stringValue ?? "")
/// }
/// ```
///
/// The first sort criterion must keep each section's objects together, as with a key path.
public struct SectionNaming: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case keyPath(String)
        case derived(keys: [String], name: @Sendable ([AttributeValue]) -> String)
    }

    let kind: Kind
    /// Distinguishes derived namings in cache fingerprints (closures cannot be compared).
    let label: String

    /// Sections named by the value at `keyPath`: an attribute, a to-one key path (`company.name`), or a key
    /// a ``ManagedObject`` subclass answers in ``ManagedObject/value(forKey:)``. Values become their text
    /// ("" for nil).
    public static func keyPath(_ keyPath: String) -> SectionNaming {
        SectionNaming(kind: .keyPath(keyPath), label: keyPath)
    }

    /// Sections named by `name`, computed from the values of `keys` (attributes or to-one key paths, read
    /// in that order). `label` identifies the rule in the controller's section cache: change it whenever
    /// the rule changes.
    public static func derived(
        from keys: [String], label: String? = nil, _ name: @escaping @Sendable ([AttributeValue]) -> String
    ) -> SectionNaming {
        SectionNaming(kind: .derived(keys: keys, name: name),
            label: label ?? "derived(" + keys.joined(separator: ",") + ")")
    }

    /// The keys the naming reads.
    var keys: [String] {
        switch kind {
        case .keyPath(let key): [key]
        case .derived(let keys, _): keys
        }
    }

    /// The name for an object or row whose values `read` returns, given each key's position in ``keys`` and
    /// the key.
    func name(reading read: (Int, String) -> AttributeValue) -> String {
        switch kind {
        case .keyPath(let key): Self.text(of: read(0, key))
        case .derived(let keys, let name): name(keys.enumerated().map(read))
        }
    }

    /// The name for values read in the order of ``keys``.
    func name(values: ArraySlice<AttributeValue>) -> String {
        switch kind {
        case .keyPath: Self.text(of: values.first ?? .null)
        case .derived(_, let name): name(Array(values))
        }
    }

    /// A section name as text: strings as they are, nil as "", anything else as its description.
    static func text(of value: AttributeValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case let other: other.description
        }
    }

    public var description: String { label }
}

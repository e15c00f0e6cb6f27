import Foundation

/// How a store is opened: Core Data's store options dictionary (`NSReadOnlyPersistentStoreOption`,
/// `NSSQLitePragmasOption`), as typed fields.
public struct PersistentStoreOptions: Sendable, Hashable {
    /// Open the store for reading only: it is never created, and saves, metadata changes and permanent-ID
    /// requests fail with ``ObjectGraphError/readOnlyStore(store:)`` without touching the file.
    public var isReadOnly: Bool
    /// Extra SQLite pragmas run on every connection the store opens, after the defaults (for example
    /// `["synchronous": "NORMAL"]`, which in WAL mode trades durability of the last commits on power loss for
    /// far fewer fsyncs during a bulk import, or `["cache_size": "-65536"]`). Names must be identifiers and
    /// values simple words or numbers; `journal_mode` cannot be changed (the store relies on WAL). Ignored by
    /// in-memory stores.
    public var sqlitePragmas: [String: String]
    /// Whether a store written with an earlier version of the model is migrated when it is added (Core
    /// Data's `NSMigratePersistentStoresAutomaticallyOption`); on by default, as in `NSPersistentContainer`.
    /// Off, such a store is refused with ``ObjectGraphError/incompatibleModel(path:entities:reason:)``.
    public var migratesAutomatically: Bool
    /// Whether the migration's mapping is inferred from the two model versions (Core Data's
    /// `NSInferMappingModelAutomaticallyOption`: lightweight migration); on by default. Mapping models are
    /// not supported, so with this off a store that needs migrating is refused.
    public var infersMappingModel: Bool
    /// The `.xcdatamodeld` bundle whose versions are searched for the one the store was written with; nil
    /// uses the bundle the coordinator's model was loaded from (``ManagedObjectModel/bundleURL``).
    public var modelBundleURL: URL?
    /// The size, in bytes, from which an SQLite store keeps a value of an attribute that allows external storage
    /// (``AttributeDescription/allowsExternalBinaryDataStorage``) in a file of its `_EXTERNAL_DATA` folder
    /// instead of in the row; smaller values stay in the row. 100 KiB by default (about where Core Data starts);
    /// 0 puts every non-nil value in a file. It applies to values saved from then on: stored ones stay where
    /// they are. Must not be negative. Ignored by in-memory stores, which keep every value in memory.
    public var externalBinaryDataThreshold: Int = ExternalBinaryStorage.defaultThreshold
    /// Whether the store records every transaction in its persistent history (Core Data's
    /// `NSPersistentHistoryTrackingKey`): who committed, when, and which objects changed, in the same SQLite
    /// transaction as the data, in Apple's history tables. It is what lets this coordinator's contexts follow
    /// other processes' commits (see ``remoteChangeNotifications``). A store file that already has history
    /// tables keeps recording whether or not this is set (Core Data would open it read-only instead).
    /// SQLite stores only; off by default.
    public var persistentHistoryTracking = false
    /// Whether the coordinator watches the store file for commits of other processes and other coordinators
    /// (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`) and posts
    /// ``Foundation/NSNotification/Name/persistentStoreRemoteChange`` for each; with ``persistentHistoryTracking``
    /// on, it also reads what they changed from the history and sends it as ``StoreCommitEvent``s, which
    /// contexts that merge automatically merge. The watcher sleeps on inotify (no busy polling) with a slow poll
    /// as a fallback. SQLite stores only; off by default.
    public var remoteChangeNotifications = false

    /// Creates options; the defaults open a writable store with no extra pragmas, migrating it automatically
    /// with an inferred mapping when it was written with an earlier model version.
    public init(
        isReadOnly: Bool = false, sqlitePragmas: [String: String] = [:], migratesAutomatically: Bool = true,
        infersMappingModel: Bool = true, modelBundleURL: URL? = nil
    ) {
        self.isReadOnly = isReadOnly
        self.sqlitePragmas = sqlitePragmas
        self.migratesAutomatically = migratesAutomatically
        self.infersMappingModel = infersMappingModel
        self.modelBundleURL = modelBundleURL
    }

    /// Checks the pragmas, so that only a name and a plain value ever reach SQL.
    func validatedPragmas() throws(ObjectGraphError) -> [(name: String, value: String)] {
        let isWordScalar = { (scalar: Unicode.Scalar) in
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        var result: [(name: String, value: String)] = []
        for (name, value) in sqlitePragmas.sorted(by: { $0.key < $1.key }) {
            guard let first = name.unicodeScalars.first, !("0"..."9").contains(first),
                name.unicodeScalars.allSatisfy(isWordScalar)
            else { throw .invalidStoreOption(name: name, reason: "a pragma name is letters, digits and _") }
            guard name.lowercased() != "journal_mode" else {
                throw .invalidStoreOption(name: name, reason: "the store keeps WAL journaling so readers never wait")
            }
            guard !value.isEmpty, value.unicodeScalars.allSatisfy({ isWordScalar($0) || "-+.".unicodeScalars.contains($0) })
            else { throw .invalidStoreOption(name: name, reason: "the value '\(value)' is not a plain word or number") }
            result.append((name, value))
        }
        return result
    }
}

/// Describes a store to add to a coordinator, or for a ``PersistentContainer`` to load: the counterpart of
/// Core Data's `NSPersistentStoreDescription`.
///
/// ```swift
/// var description = PersistentStoreDescription(url: storeURL)
/// description.configuration = "Cache"
/// description.shouldAddStoreAsynchronously = true
/// coordinator.addPersistentStore(with: description) { description, error in … }
/// ```
public struct PersistentStoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// The kind of store (`.sqlite` by default).
    public var type: PersistentStoreType
    /// The store file, for `.sqlite`.
    public var url: URL?
    /// The model configuration whose entities the store holds; nil (or `"Default"`, when the model defines no
    /// configuration of that name) means every entity.
    public var configuration: String?
    /// Whether ``PersistentStoreCoordinator/addPersistentStore(with:completionHandler:)`` opens the store on a
    /// background queue (calling its handler there) instead of before it returns.
    public var shouldAddStoreAsynchronously: Bool
    /// Read-only flag and SQLite pragmas.
    public var options: PersistentStoreOptions

    /// Creates a description of an SQLite store at `url` (or any `type`).
    public init(
        type: PersistentStoreType = .sqlite, url: URL? = nil, configuration: String? = nil,
        isReadOnly: Bool = false, shouldAddStoreAsynchronously: Bool = false
    ) {
        self.type = type
        self.url = url
        self.configuration = configuration
        self.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        self.options = PersistentStoreOptions(isReadOnly: isReadOnly)
    }

    /// Whether the store is opened for reading only (see ``PersistentStoreOptions/isReadOnly``).
    public var isReadOnly: Bool {
        get { options.isReadOnly }
        set { options.isReadOnly = newValue }
    }

    /// Whether an older store is migrated when added (Core Data's `shouldMigrateStoreAutomatically`; see
    /// ``PersistentStoreOptions/migratesAutomatically``).
    public var shouldMigrateStoreAutomatically: Bool {
        get { options.migratesAutomatically }
        set { options.migratesAutomatically = newValue }
    }

    /// Whether the migration mapping is inferred (Core Data's `shouldInferMappingModelAutomatically`; see
    /// ``PersistentStoreOptions/infersMappingModel``).
    public var shouldInferMappingModelAutomatically: Bool {
        get { options.infersMappingModel }
        set { options.infersMappingModel = newValue }
    }

    /// The SQLite pragmas set so far (see ``PersistentStoreOptions/sqlitePragmas``).
    public var sqlitePragmas: [String: String] { options.sqlitePragmas }

    /// Sets (or, with nil, removes) an SQLite pragma, as Core Data's `setValue(_:forPragmaNamed:)`.
    public mutating func setValue(_ value: String?, forPragmaNamed name: String) {
        options.sqlitePragmas[name] = value
    }

    /// The type, file, configuration and read-only flag, for logs.
    public var description: String {
        "<PersistentStoreDescription \(type.rawValue) \(url?.path ?? "(memory)")"
            + "\(configuration.map { " configuration: \($0)" } ?? "")\(isReadOnly ? " read-only" : "")>"
    }
}

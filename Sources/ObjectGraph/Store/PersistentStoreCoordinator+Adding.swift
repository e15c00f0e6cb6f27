import Dispatch
import Foundation

extension PersistentStoreCoordinator {
    /// Adds the store a description describes, on the calling thread (`shouldAddStoreAsynchronously` is
    /// the callers' business), and returns it.
    func addPersistentStore(described description: PersistentStoreDescription) throws(ObjectGraphError)
        -> PersistentStore
    {
        try addPersistentStore(ofType: description.type, configurationName: description.configuration,
            at: description.url, options: description.options)
    }

    /// Adds the store a description describes, as Core Data's `addPersistentStore(with:completionHandler:)`.
    ///
    /// With `shouldAddStoreAsynchronously` off (the default) the store is opened on the calling thread and
    /// `completionHandler` is called before this method returns; with it on, both happen on a background
    /// queue (an arbitrary one) and this method returns at once. The handler gets the description and nil,
    /// or the error; the added store is then in ``persistentStores`` (and ``persistentStore(for:)`` finds it
    /// by URL).
    public func addPersistentStore(
        with description: PersistentStoreDescription,
        completionHandler: @escaping @Sendable (PersistentStoreDescription, ObjectGraphError?) -> Void
    ) {
        let add: @Sendable () -> Void = {
            do throws(ObjectGraphError) {
                _ = try self.addPersistentStore(described: description)
                completionHandler(description, nil)
            } catch {
                completionHandler(description, error)
            }
        }
        if description.shouldAddStoreAsynchronously {
            DispatchQueue.global(qos: .userInitiated).async(execute: add)
        } else {
            add()
        }
    }

    /// Adds the store a description describes on a background queue, so that opening (and checking) a
    /// large file never blocks the caller's thread or actor.
    ///
    /// - Returns: the added store.
    /// - Throws: the errors of ``addPersistentStore(ofType:configurationName:at:options:)``.
    @discardableResult
    public func addPersistentStore(with description: PersistentStoreDescription) async throws(ObjectGraphError)
        -> PersistentStore
    {
        let result: Result<PersistentStore, ObjectGraphError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(ObjectGraphError) {
                    continuation.resume(returning: .success(try self.addPersistentStore(described: description)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}

import Dispatch
import ObjectGraph

/// `D`: delete everyone the filter shows, as one batch delete in the store.
///
/// The app asks first, saying how many people go and that it cannot be undone. On `y` it waits until
/// everything committed so far has reached the store (so the batch meets no unsaved edit of the same
/// people), then runs the batch delete and merges its result into the stack's contexts on a background
/// queue — never blocking the main thread — and the list follows through its fetched-results controller
/// like after any other change. Undo history is cleared: its steps may name people who no longer exist.
extension PeopleApp {
    /// Asks to delete everyone the current filter shows; with no filter (or an empty list) explains why not.
    func askToDeleteFiltered() {
        guard list.filter.predicate != nil else {
            message = ("D deletes everyone the filter shows: filter with / first.", true)
            return
        }
        let count = list.numberOfPeople
        guard count > 0 else {
            message = ("Nobody matches the filter; nothing to delete.", false)
            return
        }
        mode = .confirmingBatchDelete(list.filter, count: count)
    }

    /// The prompt for ``Mode/confirmingBatchDelete(_:count:)``.
    static func batchDeletePrompt(_ filter: PeopleFilter, count: Int) -> String {
        "Delete all \(NumberText.grouped(count)) \(count == 1 ? "person" : "people") matching “\(filter.text)”? "
            + "This cannot be undone. (y/n) "
    }

    /// Runs the batch delete of everyone `filter` matches (see the extension's description).
    func deleteFiltered(_ filter: PeopleFilter) {
        let request = {
            var request = BatchDeleteRequest(entityName: PeopleModel.entityName, predicate: filter.predicate)
            request.resultType = .objectIDs
            return request
        }()
        message = ("Deleting everyone matching “\(filter.text)”…", false)
        batchDeletesRunning += 1
        let coordinator = stack.coordinator
        let contexts = [stack.writerContext, stack.viewContext].compactMap { $0 }
        stack.flush { [weak self] failure in
            if let failure {
                self?.finishBatchDelete(.failure(failure), filter: filter)
                return
            }
            DispatchQueue.global(qos: .userInitiated).async {
                let result = Result<BatchResult, any Error> { try coordinator.execute(request) }
                if case .success(let batch) = result {
                    // Each context merges on its own queue; the view context's controller reports the deletions.
                    ManagedObjectContext.mergeChanges(fromBatchResult: batch, into: contexts)
                }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { self?.finishBatchDelete(result, filter: filter) }
                }
            }
        }
    }

    /// Reports how a batch delete ended and, after a successful one, clears the undo history.
    private func finishBatchDelete(_ result: Result<BatchResult, any Error>, filter: PeopleFilter) {
        batchDeletesRunning -= 1
        switch result {
        case .success(let batch):
            undoManager?.removeAllActions()
            undoSubjects.removeAll()
            redoSubjects.removeAll()
            message = ("Deleted \(NumberText.grouped(batch.count)) "
                + "\(batch.count == 1 ? "person" : "people") matching “\(filter.text)” · cannot be undone", false)
        case .failure(let error):
            message = ("Could not delete everyone matching “\(filter.text)”: \(error)", true)
        }
        needsDisplay = true
    }
}

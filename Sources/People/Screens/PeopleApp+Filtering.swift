import Foundation
import ObjectGraph

/// The filter and the sort: applied at once on a short list, after a pause in typing and on another thread on a
/// long one.
extension PeopleApp {
    /// Whether fetching for the filter is slow enough to wait for a pause in typing and to run on another thread:
    /// a long list, one still being read, or a last filter fetch that took more than a tenth of a second.
    var filterIsSlow: Bool {
        // (While the list is read on another thread it shows fewer people than the store holds: none at start-up.)
        list.isFetchingInBackground || list.numberOfPeople >= options.filterWaitsFromPeople
            || lastFilterDuration > .milliseconds(100)
    }

    /// Whether typed filter `text` waits for a pause in typing before it fetches: on a slow list (see
    /// ``filterIsSlow``), unless the store answers it from its text search index
    /// (``PeopleFilter/usesTextIndex(in:)``) or the list narrows a few shown people to it
    /// (``PeopleListViewController/narrowsResults(to:)``). Then every key fetches on another thread, and a fetch
    /// still running for the text before is cancelled, never shown.
    func filterWaitsForPause(_ text: String) -> Bool {
        guard filterIsSlow else { return false }
        let model = stack.coordinator.managedObjectModel
        guard let filter = try? PeopleFilter(text: text, keys: filterKeys) else { return true }
        if filter.usesTextIndex(in: model) { return false }
        // Narrowing a few shown people costs milliseconds too.
        return !(list.narrowsResults(to: filter) && list.numberOfPeople <= Self.narrowsWithoutPauseUpTo)
    }

    /// The most shown people a narrowing filter tests at every key rather than after a pause in typing: about
    /// 50 ms of work (see ``PeopleListViewController/narrowsResults(to:)``).
    static let narrowsWithoutPauseUpTo = 20_000

    /// The person's stored attribute names: text starting with one of them is read as a predicate.
    var filterKeys: Set<String> {
        Set(stack.coordinator.managedObjectModel.entity(named: PeopleModel.entityName)?
            .attributes.filter { !$0.isTransient }.map(\.name) ?? [])
    }

    /// Applies filter text typed earlier and not yet applied, if any.
    func applyDeferredFilter() {
        guard let text = deferredFilterText else { return }
        deferredFilterText = nil
        deferredFilterDue = nil
        applyFilter(text: text)
    }

    /// Filters the list by `text` (see ``PeopleFilter``). An invalid predicate is kept in
    /// ``filterError`` and leaves the list as it was.
    func applyFilter(text: String) {
        let started = timeSource.now
        filterEditor.setText(text)
        do {
            let filter = try PeopleFilter(text: text, keys: filterKeys)
            if filterIsSlow {
                // The list keeps showing (and following) its people until the new ones are read.
                filterError = nil
                list.applyInBackground(filter) { [weak self] error in
                    guard let self else { return }
                    self.lastFilterDuration = self.timeSource.now - started
                    self.filterError = error.map { Self.filterError($0, text: text) }
                    self.needsDisplay = true
                }
                return
            }
            do {
                try list.apply(filter)
                filterError = nil
            } catch {
                filterError = Self.filterError(error, text: text)
            }
            lastFilterDuration = timeSource.now - started
        } catch {
            filterError = error
        }
    }

    /// A fetch error of the filter `text`, as the filter line shows it (with a column where there is one).
    private static func filterError(_ error: ObjectGraphError, text: String) -> FetchPredicateError {
        if case .predicate(let predicateError) = error { return predicateError }
        return FetchPredicateError(kind: .invalidValue, message: error.description, format: text)
    }

    /// Sorts and sections the list by the next mode (on another thread for a long list).
    func showNextSectionMode() {
        let next = (list.backgroundTarget?.mode ?? list.sectionMode).next
        guard !list.isFetchingInBackground, list.numberOfPeople < options.filterWaitsFromPeople else {
            list.applyInBackground(list.backgroundTarget?.filter ?? list.filter, mode: next) { [weak self] error in
                guard let self else { return }
                if let error { self.message = ("Cannot sort by \(next.title): \(error)", true) }
                self.needsDisplay = true
            }
            return
        }
        do {
            try list.apply(next)
        } catch {
            message = ("Cannot sort by \(next.title): \(error)", true)
        }
    }
}

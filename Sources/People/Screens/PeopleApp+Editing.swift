import Foundation
import ObjectGraph
import TerminalTableView

extension PeopleApp {
    /// Saves the form through the view context: a new person is inserted, an edited one changed, as one
    /// undo step (`u` takes it back). Values are converted and validated first (`validateValue(_:forKey:)`),
    /// so nothing reaches the context until every field is acceptable; a commit that still fails
    /// (`ObjectGraphError.validation`) shows its failures under the fields and takes the change back, so
    /// the list never shows a half-saved person.
    func submit(_ form: PersonForm, editing existing: Person?) {
        var form = form
        let values: [(key: String, value: AttributeValue)]
        switch form.values() {
        case .success(let converted): values = converted
        case .failure(let errors):
            form.setErrors(errors.byKey)
            mode = .form(form, person: existing)
            return
        }
        // Another program deleted the person while the form was open: what was typed is saved as a new person.
        let deletedElsewhere = existing.map { $0.isDeleted || $0.managedObjectContext == nil } ?? false
        let existing = deletedElsewhere ? nil : existing
        guard let person = existing ?? newPerson() else {
            form.setErrors(["": "The model has no Person entity."])
            mode = .form(form, person: existing)
            return
        }
        var errors: [String: String] = [:]
        for (key, value) in values {
            do {
                try person.validateValue(value, forKey: key)
            } catch {
                errors[key] = error.reason
            }
        }
        guard errors.isEmpty else {
            form.setErrors(errors)
            mode = .form(form, person: existing)
            return
        }
        let context = stack.viewContext
        do {
            try commitUserEdit(of: person) {
                if existing == nil { context.insert(person) }
                for (key, value) in values {
                    person.setValue(value, forKey: key)
                }
                if existing == nil, person.createdAt == nil { person.createdAt = Date() }
                return (existing == nil ? "add " : "edit ") + person.fullName
            }
        } catch {
            if case .validation(let failures) = error {
                form.setErrors(Dictionary(failures.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first }))
            } else {
                form.setErrors(["": "Could not save: \(error)"])
            }
            mode = .form(form, person: existing)
            return
        }
        if let indexPath = list.resultsController.indexPath(forObject: person) {
            list.tableView.selectRow(at: indexPath, scrollPosition: .middle)
        }
        message = deletedElsewhere
            ? ("Another program had deleted this person; your edits were saved as " + person.displayName, false)
            : ((existing == nil ? "Added " : "Saved ") + person.displayName + " · u undoes", false)
        mode = .browsing
    }

    /// Deletes `person` through the view context and commits, as one undo step; on failure the deletion is
    /// taken back and the error shown.
    func delete(_ person: Person) {
        let context = stack.viewContext
        guard person.managedObjectContext === context, !person.isDeleted else { return }
        let name = person.displayName
        let fullName = person.fullName
        do {
            try commitUserEdit(of: person) {
                context.delete(person)
                return "delete \(fullName)"
            }
            message = ("Deleted \(name) · u undoes", false)
        } catch {
            message = ("Could not delete \(name): \(error)", true)
        }
    }

    private func newPerson() -> Person? {
        guard let entity = stack.coordinator.managedObjectModel.entity(named: PeopleModel.entityName) else { return nil }
        return Person(entity: entity, insertInto: nil)
    }
}

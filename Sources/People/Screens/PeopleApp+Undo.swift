import ObjectGraph

/// Undo and redo of the user's own edits (`n`, `e`, `d`) in the view context.
///
/// The view context's ``ContextUndoManager`` keeps registration *disabled* except while one of the user's
/// edits is applied. Everything else that changes the view context — the sample people at first launch,
/// and above all imports, whose batches land in the view context as pushes from worker contexts in the
/// nested stacks (or as merges in the siblings stack, which are never recorded) — is therefore never an
/// undo step, whichever queue turn it lands in. An edit is applied and its step closed within one turn of
/// the main queue, so no push can slip into it. Undo and redo are ordinary changes of the view context,
/// committed through the stack like the edit itself, so the store follows.
extension PeopleApp {
    /// Gives `context` an undo manager that records nothing until ``commitUserEdit(of:_:)`` asks it to.
    static func installUndoManager(on context: ManagedObjectContext) {
        let manager = ContextUndoManager()
        manager.disableUndoRegistration()
        context.undoManager = manager
    }

    /// The view context's undo manager.
    var undoManager: ContextUndoManager? { stack.viewContext.undoManager }

    /// Applies the user's edit `change` of `subject` to the view context as one undo step, named by what
    /// `change` returns ("delete Ada Lovelace"), and commits it through the stack. A change that changes
    /// nothing (a form saved as it was) records no step.
    ///
    /// - Throws: the commit's error. The change is then taken back (undone), so the view context holds
    ///   nothing half-done; the step moves to the redo stack, from which `U` tries it again.
    func commitUserEdit(of subject: Person, _ change: () -> String) throws(ObjectGraphError) {
        let context = stack.viewContext
        let manager = context.undoManager
        context.processPendingChanges()  // whatever came before is not part of this step
        manager?.enableUndoRegistration()
        let name = change()
        // A recorded change opened the event's group; nothing recorded, no group (and no step).
        let recorded = (manager?.groupingLevel ?? 0) > 0
        if recorded { manager?.setActionName(name) }
        context.processPendingChanges()  // ends the event: closes the step
        manager?.disableUndoRegistration()
        if recorded {
            undoSubjects.append(subject)
            redoSubjects.removeAll()  // recording a step emptied the redo stack
        }
        do {
            try stack.commit(context)
        } catch {
            if recorded {
                context.undo()
                redoSubjects.append(undoSubjects.removeLast())
            }
            throw error
        }
    }

    /// `u`: undoes the most recent of the user's edits and commits the result.
    func undoLastEdit() {
        let context = stack.viewContext
        guard let manager = context.undoManager, manager.canUndo else {
            message = ("Nothing to undo.", false)
            return
        }
        let name = manager.undoActionName
        context.undo()
        let subject = undoSubjects.popLast()
        do {
            try stack.commit(context)
            subject.map { redoSubjects.append($0) }
            message = ("Undid \(name) · U redoes", false)
            select(subject)
        } catch {
            context.redo()  // back to what the store holds
            subject.map { undoSubjects.append($0) }
            message = ("Could not undo \(name): \(error)", true)
        }
    }

    /// `U`: redoes the edit most recently undone and commits the result.
    func redoLastEdit() {
        let context = stack.viewContext
        guard let manager = context.undoManager, manager.canRedo else {
            message = ("Nothing to redo.", false)
            return
        }
        let name = manager.redoActionName
        context.redo()
        let subject = redoSubjects.popLast()
        do {
            try stack.commit(context)
            subject.map { undoSubjects.append($0) }
            message = ("Redid \(name) · u undoes", false)
            select(subject)
        } catch {
            context.undo()
            subject.map { redoSubjects.append($0) }
            message = ("Could not redo \(name): \(error)", true)
        }
    }

    /// Puts the cursor on `person` when the list shows them (after an undone delete, say).
    private func select(_ person: Person?) {
        guard let person, !person.isDeleted, let indexPath = list.resultsController.indexPath(forObject: person)
        else { return }
        list.tableView.selectRow(at: indexPath, scrollPosition: .middle)
    }
}

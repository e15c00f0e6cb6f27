/// Undo and redo for one managed object context: the counterpart of the `UndoManager` that Core Data's
/// `NSManagedObjectContext.undoManager` holds (Foundation on Linux has none).
///
/// Assign one to ``ManagedObjectContext/undoManager`` and the context records every change made to its
/// objects — attribute values, both sides of relationships, inserts and deletes (with what their delete
/// rules did to related objects) — in *undo groups*. ``undo()`` puts every object the most recent group
/// touched back to its state before the group (re-inserting deleted objects, discarding inserted ones)
/// and makes that a redo group; ``redo()`` puts them back again. Undo and redo are ordinary changes of the
/// context: its inserted, updated and deleted objects and ``ManagedObjectContext/hasChanges`` follow (an
/// object undone back to its saved values is no longer updated), and observers — a fetched-results
/// controller among them — get an ``ObjectsDidChange``. Undoing past a save makes new unsaved changes that
/// revert the saved ones, as in Core Data.
///
/// Grouping: with ``groupsByEvent`` (the default), the changes of one *event* form one group — an event
/// ends whenever the context processes its pending changes: at the end of each ``ManagedObjectContext/perform(_:)->()``
/// or outermost ``ManagedObjectContext/performAndWait(_:)`` block, before a save, and at the end of each
/// turn of the context's queue. So one user action done in one `perform` is one undo step.
/// ``beginUndoGrouping()`` / ``endUndoGrouping()`` open explicit groups, which nest: inside an event they
/// are part of the event's group; a group begun in one event and ended in a later one makes the changes of
/// all those events one step. With `groupsByEvent` off, only explicit groups record changes.
///
/// What is not recorded: changes merged from other contexts' saves, ``ManagedObjectContext/refresh(_:mergeChanges:)``,
/// and changes made while registration is disabled (``disableUndoRegistration()``).
/// ``ManagedObjectContext/rollback()`` and ``ManagedObjectContext/reset()`` clear both stacks.
///
/// Confinement: a manager belongs to one context at a time (assigning it to another context moves it
/// there and clears it) and, like the context's objects, is used only on that context's queue — inside
/// `perform`/`performAndWait`, or on the main queue for a `.mainQueue` context. It is `@unchecked
/// Sendable` only so that it can be captured by `perform` blocks; it has no locks.
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// context.perform { person["city"] = "Oslo" }       // one step
/// context.perform { context.undo() }               // city is back; redo() sets "Oslo" again
/// ```
public final class ContextUndoManager: @unchecked Sendable {
    /// Creates an empty undo manager; assign it to ``ManagedObjectContext/undoManager``.
    public init() {}

    /// How many undo groups are kept; older ones are dropped. 0 (the default) keeps them all. The redo
    /// stack is bounded the same way. Lowering it drops the oldest groups at once.
    public var levelsOfUndo = 0 {
        didSet {
            levelsOfUndo = max(0, levelsOfUndo)
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    /// Whether a group is opened automatically for the changes of each event and closed when the context
    /// processes its pending changes (default `true`). When `false`, changes outside an explicit
    /// ``beginUndoGrouping()`` / ``endUndoGrouping()`` pair are not recorded.
    public var groupsByEvent = true

    /// How deeply groups are nested now: 0 when no group is open; the automatic group of an event counts.
    public private(set) var groupingLevel = 0

    /// Whether changes are being recorded (registration is not disabled).
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// Whether ``undo()`` is applying a group right now.
    public private(set) var isUndoing = false

    /// Whether ``redo()`` is applying a group right now.
    public private(set) var isRedoing = false

    /// Whether there is something to undo: a recorded group, or changes in the group still open.
    public var canUndo: Bool { !undoStack.isEmpty || !openGroup.isEmpty }

    /// Whether there is something to redo. Recording any new change empties the redo stack.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// The name of the action ``undo()`` would undo ("" when it has none): the open group's, if it has
    /// changes, else the most recent recorded group's.
    public var undoActionName: String {
        if !openGroup.isEmpty { return openGroup.actionName }
        return undoStack.last?.actionName ?? ""
    }

    /// The name of the action ``redo()`` would redo ("" when it has none).
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the current action (for an "Undo Rename" menu item): the open group when one is open, else
    /// the most recent recorded group. The name follows the group to the redo stack and back.
    public func setActionName(_ name: String) {
        if groupingLevel > 0 {
            openGroup.actionName = name
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].actionName = name
        }
    }

    /// Opens a group: every change until the matching ``endUndoGrouping()`` is part of it. Groups nest;
    /// only the outermost one becomes an undo step. With ``groupsByEvent``, a group opened with none open
    /// sits inside the event's automatic group (closed when the event ends after the explicit groups are).
    public func beginUndoGrouping() {
        if groupingLevel == 0, groupsByEvent {
            openAutomaticGroup()
        }
        groupingLevel += 1
    }

    /// Closes the innermost open group; closing the outermost one records it as one undo step (when it has
    /// changes). Calling it with no group open does nothing (Foundation's `UndoManager` raises).
    public func endUndoGrouping() {
        guard groupingLevel > 0 else { return }
        groupingLevel -= 1
        if groupingLevel == 0 { closeGroup() }
    }

    /// Undoes the most recent group: every object it touched goes back to its state before the group, and
    /// the group's reverse becomes the top of the redo stack. Open groups are closed first (so undoing
    /// right after a change in the same event undoes that change), pending changes are processed before
    /// and after (observers get the undo as one ``ObjectsDidChange``). Does nothing with nothing to undo.
    public func undo() {
        guard let context, !isUndoing, !isRedoing else { return }
        closeOpenGroups(in: context)
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        defer { isUndoing = false }
        let reverse = context.applyUndoGroup(group)
        context.processPendingChanges()
        push(reverse, onto: &redoStack)
    }

    /// Redoes the group most recently undone, and makes its reverse the top of the undo stack again.
    /// Does nothing with nothing to redo.
    public func redo() {
        guard let context, !isUndoing, !isRedoing else { return }
        closeOpenGroups(in: context)
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        defer { isRedoing = false }
        let reverse = context.applyUndoGroup(group)
        context.processPendingChanges()
        push(reverse, onto: &undoStack)
    }

    /// Forgets every undo and redo group (and what the open group recorded so far), and re-enables
    /// registration, as Foundation's `removeAllActions()` does.
    public func removeAllActions() {
        discardAllActions()
        disabledCount = 0
    }

    /// Stops recording changes until the matching ``enableUndoRegistration()``; calls nest. Changes made
    /// meanwhile are not undoable (and undoing earlier groups may overwrite them).
    public func disableUndoRegistration() {
        disabledCount += 1
    }

    /// Balances one ``disableUndoRegistration()``; recording resumes when every one is balanced.
    public func enableUndoRegistration() {
        disabledCount = max(0, disabledCount - 1)
    }

    // MARK: - Internals (on the context's queue)

    /// The context whose changes are recorded.
    weak var context: ManagedObjectContext?
    private(set) var undoStack: [UndoGroup] = []
    private(set) var redoStack: [UndoGroup] = []
    /// What the open group recorded; empty when no group is open.
    private var openGroup = UndoGroup()
    /// Whether the outermost open group is the automatic group of the current event.
    private var isAutomaticGroupOpen = false
    private var disabledCount = 0

    /// Records `object`'s state for `property` before its first change in the open group.
    func willChange(_ object: ManagedObject, _ property: UndoGroup.Property, in context: ManagedObjectContext) {
        guard disabledCount == 0, !isUndoing, !isRedoing else { return }
        if groupingLevel == 0 {
            guard groupsByEvent else { return }
            openAutomaticGroup()
        }
        if !redoStack.isEmpty { redoStack.removeAll() }
        openGroup.capture(object, property, in: context)
    }

    /// The context processed its pending changes: the end of an event closes its automatic group (unless
    /// explicit groups inside it are still open).
    func eventDidEnd() {
        guard isAutomaticGroupOpen, groupingLevel == 1, !isUndoing, !isRedoing else { return }
        groupingLevel = 0
        closeGroup()
    }

    /// Clears both stacks and the open group's records, keeping the grouping level and registration state
    /// (for rollback and reset, whose changes make the records meaningless).
    func discardAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = UndoGroup(actionName: openGroup.actionName)
    }

    /// Moves the manager to `context`, forgetting what it recorded for another one.
    func attach(to context: ManagedObjectContext) {
        guard self.context !== context else { return }
        discardAllActions()
        self.context = context
    }

    private func openAutomaticGroup() {
        isAutomaticGroupOpen = true
        groupingLevel = 1
        // The event must end even if no change schedules processing (a transient value, an empty group).
        context?.scheduleProcessing()
    }

    private func closeGroup() {
        let group = openGroup
        openGroup = UndoGroup()
        isAutomaticGroupOpen = false
        guard !group.isEmpty else { return }
        push(group, onto: &undoStack)
    }

    /// Ends the current event's group and closes any explicit groups left open, before an undo or redo.
    private func closeOpenGroups(in context: ManagedObjectContext) {
        context.processPendingChanges()
        if groupingLevel > 0 {
            groupingLevel = 0
            closeGroup()
        }
    }

    private func push(_ group: UndoGroup, onto stack: inout [UndoGroup]) {
        guard !group.isEmpty else { return }
        stack.append(group)
        trim(&stack)
    }

    private func trim(_ stack: inout [UndoGroup]) {
        if levelsOfUndo > 0, stack.count > levelsOfUndo { stack.removeFirst(stack.count - levelsOfUndo) }
    }
}

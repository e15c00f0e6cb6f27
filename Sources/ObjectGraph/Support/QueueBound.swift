/// A value confined to a context's queue, carried through another thread without being touched there: the
/// controller and the caller's completion travel with a background fetch and are used only inside
/// `perform` blocks of their context. This confinement, not the compiler, is what makes the
/// `@unchecked Sendable` sound.
struct QueueBound<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}

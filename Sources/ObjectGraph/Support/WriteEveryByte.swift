import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte of `bytes` to the open file `descriptor`: the system's `write` may take fewer bytes than
/// it is given, or be interrupted by a signal, and either way the rest is written next. False on an error,
/// which `errno` names.
func writeEveryByte(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    guard var next = bytes.baseAddress else { return true }
    var remaining = bytes.count
    while remaining > 0 {
        let written = write(descriptor, next, remaining)
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        next += written
        remaining -= written
    }
    return true
}

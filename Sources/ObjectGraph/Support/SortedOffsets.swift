/// Binary searches over ascending arrays of offsets, shared by the fetched-results controller's index and
/// section runs.
extension Array where Element == Int {
    /// For ascending starts beginning with 0: the index of the last start at or before `offset`.
    func indexOfLastStart(atOrBefore offset: Int) -> Int {
        var low = 0
        var high = count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if self[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// For ascending values: how many are below `value`.
    func countBelow(_ value: Int) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// For ascending values: whether `value` is among them.
    func containsSorted(_ value: Int) -> Bool {
        let position = countBelow(value)
        return position < count && self[position] == value
    }
}

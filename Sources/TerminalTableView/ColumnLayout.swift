/// Where each column starts and how wide it is, for a given content width.
struct ColumnLayout: Equatable {
    struct Slot: Equatable {
        var x: Int
        var width: Int
        var alignment: TableColumn.Alignment
    }

    var slots: [Slot]

    /// Lays out `columns` in `width` cells with `spacing` cells between neighbours.
    ///
    /// Fixed columns get their width; flexible ones share what is left by weight, never less than their
    /// minimum. Columns that end up past `width` are clipped when drawn, never squeezed below their
    /// minimum, so the layout stays stable on narrow screens.
    init(columns: [TableColumn], width: Int, spacing: Int) {
        let gaps = max(0, columns.count - 1) * spacing
        var fixedTotal = 0
        var weights = 0
        for column in columns {
            switch column.width {
            case .fixed(let cells): fixedTotal += max(0, cells)
            case .flexible(_, let weight): weights += max(1, weight)
            }
        }
        let flexibleTotal = max(0, width - fixedTotal - gaps)
        var remaining = flexibleTotal
        var remainingWeights = weights
        var x = 0
        var slots: [Slot] = []
        for column in columns {
            let cells: Int
            switch column.width {
            case .fixed(let fixed):
                cells = max(0, fixed)
            case .flexible(let minimum, let weight):
                let weight = max(1, weight)
                // The last flexible column takes the rounding remainder.
                let share = remainingWeights == weight ? remaining : remaining * weight / max(1, remainingWeights)
                remaining -= share
                remainingWeights -= weight
                cells = max(max(0, minimum), share)
            }
            slots.append(Slot(x: x, width: cells, alignment: column.alignment))
            x += cells + spacing
        }
        self.slots = slots
    }
}

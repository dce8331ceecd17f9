import Foundation

/// What the `list` commands print: aligned columns under a header, or with `--json` an array of objects keyed by
/// the columns' JSON names.
///
/// ```swift
/// var table = Table(columns: [("kid", "KEY ID"), ("state", "STATE")])
/// table.append(["k1", "signing"])
/// table.print(json: false)
/// ```
struct Table {
    let columns: [(key: String, title: String)]
    private(set) var rows: [[String]] = []

    init(columns: [(key: String, title: String)]) { self.columns = columns }

    mutating func append(_ row: [String]) { rows.append(row) }

    func print(json: Bool, whenEmpty: String) {
        if json {
            let objects = rows.map { row in Dictionary(uniqueKeysWithValues: zip(columns.map(\.key), row)) }
            let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        guard !rows.isEmpty else { Swift.print(whenEmpty); return }
        let all = [columns.map(\.title)] + rows
        let widths = columns.indices.map { index in all.map { $0[index].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            Swift.print(cells.joined(separator: "  "))
        }
    }
}

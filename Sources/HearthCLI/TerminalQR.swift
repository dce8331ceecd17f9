/// A QR code for a terminal: `console-admins create` shows the authenticator's `otpauth://` link as one, so a phone
/// can scan it from the screen. Byte mode, error correction level M, versions 1 to 10 (up to 213 bytes, ample for
/// an otpauth link); ISO/IEC 18004's steps in order. No library in the dependency graph draws QR codes, and this one
/// is small.
///
/// ```swift
/// if let code = TerminalQR(text: "otpauth://totp/…") { print(code.rendered()) }
/// ```
struct TerminalQR {
    /// `modules[y][x]`: true is dark.
    let modules: [[Bool]]
    var size: Int { modules.count }

    /// Codewords per block (data, error correction) and block counts, level M, versions 1…10.
    private static let blocks: [(data: [Int], ecPerBlock: Int)] = [
        ([16], 10), ([28], 16), ([44], 26), ([32, 32], 18), ([43, 43], 24), ([27, 27, 27, 27], 16),
        ([31, 31, 31, 31], 18), ([38, 38, 39, 39], 22), ([36, 36, 36, 37, 37], 22), ([43, 43, 43, 43, 44], 26),
    ]

    /// Nil when `text` is longer than version 10 holds.
    init?(text: String) {
        let bytes = Array(text.utf8)
        guard let version = (1...10).first(where: { Self.capacity(version: $0) >= bytes.count }) else { return nil }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version), version: version)
        var grid = Grid(version: version)
        grid.place(codewords)
        // Each mask scored once; the lowest penalty reads best.
        let scored = (0..<8).map { mask in let masked = grid.masked(mask); return (masked, masked.penalty) }
        modules = scored.min { $0.1 < $1.1 }!.0.modules
    }

    private static func capacity(version: Int) -> Int {
        blocks[version - 1].data.reduce(0, +) - (version < 10 ? 2 : 3)  // mode (4 bits), count (8 or 16), terminator
    }

    /// Mode, count, the bytes, terminator and padding: the data codewords.
    private static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) { for i in (0..<count).reversed() { bits.append((value >> i) & 1 == 1) } }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        let total = blocks[version - 1].data.reduce(0, +) * 8
        append(0, min(4, total - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var pads = 0
        while bits.count < total { append(pads % 2 == 0 ? 0xEC : 0x11, 8); pads += 1 }
        return stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }

    /// The data split into blocks, each followed by its Reed-Solomon codewords, then interleaved.
    private static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks[version - 1]
        var blocksData: [[UInt8]] = [], start = 0
        for count in layout.data { blocksData.append(Array(data[start..<start + count])); start += count }
        let divisor = ReedSolomon.divisor(degree: layout.ecPerBlock)
        let ecBlocks = blocksData.map { ReedSolomon.remainder($0, divisor) }
        var result: [UInt8] = []
        for i in 0..<(layout.data.max() ?? 0) { for block in blocksData where i < block.count { result.append(block[i]) } }
        for i in 0..<layout.ecPerBlock { for block in ecBlocks { result.append(block[i]) } }
        return result
    }

    /// Two module rows per line in half blocks, with a quiet zone of two modules. With `colors` (a terminal), each
    /// cell sets black and white itself, so the code reads the same on light and dark themes; without, `█` and the
    /// half blocks are the light modules (as ink on a dark terminal), which `hearth`'s tests decode back.
    func rendered(colors: Bool) -> String {
        let quiet = 2
        let dark = { (y: Int, x: Int) -> Bool in (0..<size).contains(y) && (0..<size).contains(x) && modules[y][x] }
        var lines: [String] = []
        for y in stride(from: -quiet, to: size + quiet, by: 2) {
            var line = ""
            for x in -quiet..<size + quiet {
                let (top, bottom) = (dark(y, x), dark(y + 1, x))
                if colors {
                    line += "\u{1B}[38;5;\(top ? 16 : 231)m\u{1B}[48;5;\(bottom ? 16 : 231)m▀"
                } else {
                    let cell: Character = switch (top, bottom) {
                    case (false, false): "█"
                    case (false, true): "▀"
                    case (true, false): "▄"
                    case (true, true): " "
                    }
                    line.append(cell)
                }
            }
            lines.append(line + (colors ? "\u{1B}[0m" : ""))
        }
        return lines.joined(separator: "\n")
    }
}

/// The symbol being built: modules, and which of them are function patterns that data and masks leave alone.
private struct Grid {
    var modules: [[Bool]]
    var isFunction: [[Bool]]
    let version: Int
    var size: Int { modules.count }

    init(version: Int) {
        self.version = version
        let size = 17 + 4 * version
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
        for i in 0..<size {
            set(x: 6, y: i, i % 2 == 0)
            set(x: i, y: 6, i % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { finder(x: x, y: y) }
        let positions = [[Int]]([[], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
                                 [6, 28, 50]])[version - 1]
        for (i, y) in positions.enumerated() {
            for (j, x) in positions.enumerated() {
                let corner = (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0)
                if !corner { alignmentPattern(x: x, y: y) }
            }
        }
        format(mask: 0)  // reserves the format areas; drawn again with the chosen mask
        if version >= 7 { versionInformation() }
    }

    mutating func set(x: Int, y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    private mutating func finder(x: Int, y: Int) {
        for dy in -4...4 {
            for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                let distance = max(abs(dx), abs(dy))
                set(x: x + dx, y: y + dy, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func alignmentPattern(x: Int, y: Int) {
        for dy in -2...2 { for dx in -2...2 { set(x: x + dx, y: y + dy, max(abs(dx), abs(dy)) != 1) } }
    }

    /// Level M (format bits 00) and `mask`, BCH-coded, in both copies, with the dark module.
    mutating func format(mask: Int) {
        let data = mask  // level M's two bits are 00
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        let bit = { (i: Int) in (bits >> i) & 1 == 1 }
        for i in 0...5 { set(x: 8, y: i, bit(i)) }
        set(x: 8, y: 7, bit(6))
        set(x: 8, y: 8, bit(7))
        set(x: 7, y: 8, bit(8))
        for i in 9..<15 { set(x: 14 - i, y: 8, bit(i)) }
        for i in 0..<8 { set(x: size - 1 - i, y: 8, bit(i)) }
        for i in 8..<15 { set(x: 8, y: size - 15 + i, bit(i)) }
        set(x: 8, y: size - 8, true)
    }

    private mutating func versionInformation() {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1
            let (a, b) = (size - 11 + i % 3, i / 3)
            set(x: a, y: b, dark)
            set(x: b, y: a, dark)
        }
    }

    /// The codewords in the two-column zigzag from the bottom right, around the function patterns.
    mutating func place(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y][x], index < codewords.count * 8 else { continue }
                    modules[y][x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    func masked(_ mask: Int) -> Grid {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] {
                let flip = switch mask {
                case 0: (x + y) % 2 == 0
                case 1: y % 2 == 0
                case 2: x % 3 == 0
                case 3: (x + y) % 3 == 0
                case 4: (x / 3 + y / 2) % 2 == 0
                case 5: x * y % 2 + x * y % 3 == 0
                case 6: (x * y % 2 + x * y % 3) % 2 == 0
                default: ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if flip { copy.modules[y][x].toggle() }
            }
        }
        copy.format(mask: mask)
        return copy
    }

    /// The standard's penalty: long runs, 2×2 blocks, finder-like patterns, and an imbalance of dark modules.
    var penalty: Int {
        var score = 0
        let columns = (0..<size).map { x in (0..<size).map { modules[$0][x] } }
        for line in modules + columns {
            var run = 1
            for i in 1..<size {
                if line[i] == line[i - 1] { run += 1 } else { if run >= 5 { score += run - 2 }; run = 1 }
            }
            if run >= 5 { score += run - 2 }
            let pattern: [Bool] = [true, false, true, true, true, false, true]
            for i in 0...(size - 7) where Array(line[i..<i + 7]) == pattern {
                let before = (max(0, i - 4)..<i).allSatisfy { !line[$0] } && i >= 4
                let after = (i + 7..<min(size, i + 11)).allSatisfy { !line[$0] } && i + 11 <= size
                if before || after { score += 40 }
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let color = modules[y][x]
                if modules[y][x + 1] == color && modules[y + 1][x] == color && modules[y + 1][x + 1] == color { score += 3 }
            }
        }
        let dark = modules.joined().filter { $0 }.count
        let total = size * size
        score += ((abs(dark * 20 - total * 10) + total - 1) / total - 1) * 10
        return score
    }
}

/// Reed-Solomon over GF(256) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1.
private enum ReedSolomon {
    static func multiply(_ x: Int, _ y: Int) -> Int {
        var z = 0
        for i in (0..<8).reversed() {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((y >> i) & 1) * x
        }
        return z
    }

    static func divisor(degree: Int) -> [Int] {
        var result = Array(repeating: 0, count: degree - 1) + [1]
        var root = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 2)
        }
        return result
    }

    static func remainder(_ data: [UInt8], _ divisor: [Int]) -> [UInt8] {
        var result = Array(repeating: 0, count: divisor.count)
        for byte in data {
            let factor = Int(byte) ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(divisor[i], factor) }
        }
        return result.map { UInt8($0) }
    }
}

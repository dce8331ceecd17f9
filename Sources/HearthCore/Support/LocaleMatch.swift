/// Picks the language to write in from what a client asked for (`X-Firebase-Locale`, `lang`, `hl`): the exact tag,
/// then its script or region family (`zh-Hant`, `zh-HK` → `zh-TW`; `zh`, `zh-Hans` → `zh-CN`; `pt`, `pt-PT` →
/// `pt-BR` when only that is offered), then its language (`fr-CA` → `fr`); `nil` when nothing fits.
///
/// ```swift
/// LocaleMatch.best(for: "ja_JP", among: ["en", "ja"])  // "ja"
/// ```
public enum LocaleMatch {
    public static func best(for requested: String?, among available: [String]) -> String? {
        guard let requested, !requested.isEmpty else { return nil }
        let wanted = requested.replacingOccurrences(of: "_", with: "-").lowercased()
        let byLower = Dictionary(available.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        if let exact = byLower[wanted] { return exact }
        let parts = wanted.split(separator: "-").map(String.init)
        guard let language = parts.first else { return nil }
        if language == "zh" {
            let traditional = parts.contains { ["hant", "tw", "hk", "mo"].contains($0) }
            if let match = byLower[traditional ? "zh-tw" : "zh-cn"] { return match }
        }
        if let plain = byLower[language] { return plain }
        // Any regional variant of the language (`pt` → `pt-BR`), preferring the shortest tag.
        return available.filter { $0.lowercased().hasPrefix(language + "-") }.min { $0.count < $1.count }
    }
}

/// E.164 phone numbers, the only form Firebase stores: `+`, a country code not starting with 0, at most 15 digits.
public enum PhoneNumber {
    public static func isValid(_ number: String) -> Bool {
        let digits = number.utf8.dropFirst()
        return number.utf8.first == UInt8(ascii: "+") && (7...15).contains(digits.count)
            && digits.first != UInt8(ascii: "0") && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A number as people write it, in E.164: spaces, dashes, dots and parentheses dropped, and a national trunk
    /// `0` after the country code dropped (`+44 (0)7700 900123` and `+44 07700 900123` are `+447700900123`), except
    /// where the 0 belongs to the number (Italy's `+39 06…`). `nil` when what is left is not E.164. Limits and
    /// stored numbers use this form, so one number is one key however it is spelled.
    ///
    /// ```swift
    /// PhoneNumber.normalized("+44 07700 900123")   // "+447700900123"
    /// ```
    public static func normalized(_ text: String) -> String? {
        var digits = String(text.unicodeScalars.filter { !" -.()\u{00A0}".unicodeScalars.contains($0) })
        guard digits.first == "+" else { return nil }
        digits.removeFirst()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        if let code = (1...3).lazy.map({ String(digits.prefix($0)) }).first(where: { regionByCode[$0] != nil || sharedCodes[$0] != nil }),
           code != "39", digits.dropFirst(code.count).first == "0" {
            digits = code + digits.dropFirst(code.count + 1)
        }
        let number = "+" + digits
        return isValid(number) ? number : nil
    }

    /// The region (ISO 3166-1 alpha-2: `US`, `CA`, `GB`) a valid number belongs to, from libphonenumber's metadata
    /// (``regionByCode``, ``sharedCodes``); `nil` for a calling code it does not know.
    ///
    /// ```swift
    /// PhoneNumber.region(of: "+14165550100")   // "CA" (Toronto's area code)
    /// ```
    public static func region(of number: String) -> String? {
        let digits = String(number.dropFirst())
        for length in 1...3 where digits.count > length {
            let code = String(digits.prefix(length)), national = digits.dropFirst(length)
            if let region = regionByCode[code] { return region }
            if let (main, prefixes) = sharedCodes[code] {
                for cut in stride(from: min(4, national.count), through: 1, by: -1) {
                    if let region = prefixes[String(national.prefix(cut))] { return region }
                }
                return main
            }
        }
        return nil
    }
}

/// Where SMS codes may be sent (Identity Platform's `smsRegionConfig`): every region but a deny list, or only an
/// allow list. A number of another region is refused before anything is sent.
public enum SMSRegionPolicy: Sendable, Codable, Equatable {
    case allowByDefault(disallowed: [String])
    case allowlistOnly(allowed: [String])

    /// Whether a code may be sent to `number`; a number whose region is unknown passes only `allowByDefault`.
    public func allows(_ number: String) -> Bool {
        let region = PhoneNumber.region(of: number)
        switch self {
        case .allowByDefault(let disallowed): return region.map { !disallowed.contains($0) } ?? true
        case .allowlistOnly(let allowed): return region.map(allowed.contains) ?? false
        }
    }
}

/// E.164 phone numbers, the only form Firebase stores: `+`, a country code not starting with 0, at most 15 digits.
public enum PhoneNumber {
    public static func isValid(_ number: String) -> Bool {
        let digits = number.utf8.dropFirst()
        return number.utf8.first == UInt8(ascii: "+") && (7...15).contains(digits.count)
            && digits.first != UInt8(ascii: "0") && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

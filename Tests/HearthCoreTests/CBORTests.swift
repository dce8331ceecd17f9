import Crypto
import Foundation
@testable import HearthCore
import Testing

/// The strict CBOR reader WebAuthn rests on: RFC 8949's examples, each refusal, and a fuzz run whose every accepted
/// input must encode back to itself (so nothing is accepted that is not canonical CBOR of the supported subset).
@Suite struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    @Test(arguments: [
        ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("20", .negative(0)), ("3863", .negative(99)), ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("62c3bc", .text("ü")), ("80", .array([])),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])), ("a0", .map([])),
        ("a201020304", .map([.init(key: .unsigned(1), value: .unsigned(2)), .init(key: .unsigned(3), value: .unsigned(4))])),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
    ])
    func rfc8949Examples(_ encoded: String, _ value: CBOR) throws {
        #expect(try CBOR.decode(Self.hex(encoded)) == value)
        #expect(Self.encode(value) == Self.hex(encoded), "and back")
    }

    @Test(arguments: [
        ("1817", CBOR.DecodingError.nonCanonical), ("190017", .nonCanonical), ("5f4101ff", .indefiniteLength),
        ("9fff", .indefiniteLength), ("f93c00", .unsupported("simple value or float 25")), ("c074", .unsupported("tags")),
        ("5bffffffffffffffff", .truncated), ("9b0000000100000000", .unsupported("an array of 4294967296 items")),
        ("a2010201 03".replacingOccurrences(of: " ", with: ""), .duplicateKey), ("62c328", .invalidText), ("0000", .trailingBytes),
        ("a1800102", .badKey), ("8301", .truncated), ("", .truncated), ("1c", .unsupported("additional information 28")),
    ])
    func refusals(_ encoded: String, _ error: CBOR.DecodingError) {
        #expect(throws: error) { try CBOR.decode(Self.hex(encoded)) }
    }

    @Test func nestingIsBounded() {
        #expect(throws: CBOR.DecodingError.tooDeep) { try CBOR.decode([UInt8](repeating: 0x81, count: 40) + [0x00]) }
        #expect(throws: Never.self) { try CBOR.decode([UInt8](repeating: 0x81, count: 15) + [0x00]) }
    }

    /// 300,000 random inputs (seeded, so a failure replays): none crashes, and each one accepted is canonical — it
    /// encodes back to exactly its bytes. Then every truncation and every single-bit flip of a real attestation
    /// object, through the whole registration check: refused with a WebAuthn error, never a crash.
    @Test func fuzz() throws {
        var random = SplitMix(seed: 0x4845_4152_5448)
        var accepted = 0
        for _ in 0..<300_000 {
            let length = Int(random.next() % 24)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = [0x82, 0xa1, 0xa2, 0x83, 0x58, 0x44][Int(random.next() % 6)] }
            if let value = try? CBOR.decode(bytes) {
                accepted += 1
                #expect(Self.encode(value) == bytes, "accepted but not canonical: \(bytes)")
            }
        }
        #expect(accepted > 1000, "the run reached past the first byte: \(accepted)")

        let (object, clientData, challenge, party) = try Self.registration()
        _ = try WebAuthn.verifyRegistration(clientData, attestationObject: object, challenge: challenge, party: party)
        func refused(_ bytes: [UInt8]) -> Bool {
            do {
                _ = try WebAuthn.verifyRegistration(clientData, attestationObject: bytes, challenge: challenge, party: party)
                return false
            } catch {
                return true  // typed: a WebAuthnError, never anything else
            }
        }
        for end in 0..<object.count {
            #expect(refused(Array(object[..<end])), "cut at \(end)")
        }
        var flips = 0
        for index in object.indices {
            for bit in 0..<8 {
                var flipped = object
                flipped[index] ^= 1 << bit
                if refused(flipped) { flips += 1 }
            }
        }
        // A flip that still verifies can only be in what the signature does not cover: the statement's own CBOR
        // framing around the signature bytes (none here: any such flip breaks the DER or the map).
        #expect(flips == object.count * 8, "every flipped bit is refused: \(object.count * 8 - flips) passed")
    }

    /// A packed self-attested ES256 registration made here, as an authenticator would.
    static func registration() throws -> ([UInt8], ClientData, [UInt8], RelyingParty) {
        let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
        let key = P256.Signing.PrivateKey()
        let raw = Array(key.publicKey.rawRepresentation)
        let cose = encode(.map([
            .init(key: .unsigned(1), value: .unsigned(2)), .init(key: .unsigned(3), value: .negative(6)),
            .init(key: .negative(0), value: .unsigned(1)), .init(key: .negative(1), value: .bytes(Array(raw[..<32]))),
            .init(key: .negative(2), value: .bytes(Array(raw[32...]))),
        ]))
        let credentialID = [UInt8](repeating: 7, count: 16)
        let authData = Array(SHA256.hash(data: Data("example.com".utf8))) + [0x45] + [0, 0, 0, 0]
            + [UInt8](repeating: 0, count: 16) + [0, 16] + credentialID + cose
        let challenge = [UInt8](repeating: 9, count: 32)
        let clientJSON = Array(#"{"type":"webauthn.create","challenge":"\#(Base64URL.encode(Data(challenge)))","origin":"https://example.com"}"#.utf8)
        let signature = try key.signature(for: authData + Array(SHA256.hash(data: clientJSON)))
        let object = encode(.map([
            .init(key: .text("fmt"), value: .text("packed")),
            .init(key: .text("attStmt"), value: .map([.init(key: .text("alg"), value: .negative(6)),
                                                      .init(key: .text("sig"), value: .bytes(Array(signature.derRepresentation)))])),
            .init(key: .text("authData"), value: .bytes(authData)),
        ]))
        return (object, try ClientData(clientJSON), challenge, party)
    }

    /// Canonical CBOR of a value: the shortest heads, definite lengths, entries in their given order.
    static func encode(_ value: CBOR) -> [UInt8] {
        func head(_ major: UInt8, _ n: UInt64) -> [UInt8] {
            switch n {
            case 0..<24: [major << 5 | UInt8(n)]
            case 24..<0x100: [major << 5 | 24, UInt8(n)]
            case 0x100..<0x1_0000: [major << 5 | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) }
            case 0x1_0000..<0x1_0000_0000: [major << 5 | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) }
            default: [major << 5 | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) }
            }
        }
        switch value {
        case .unsigned(let n): return head(0, n)
        case .negative(let n): return head(1, n)
        case .bytes(let b): return head(2, UInt64(b.count)) + b
        case .text(let t): return head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let items): return head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let entries): return head(5, UInt64(entries.count)) + entries.flatMap { encode($0.key) + encode($0.value) }
        case .bool(let b): return [b ? 0xf5 : 0xf4]
        case .null: return [0xf6]
        }
    }
}

/// A small seeded generator (SplitMix64), so a fuzz failure can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

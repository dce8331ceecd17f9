import ArgumentParser
import Foundation
import HearthCore

/// `hearth speed`: the ceilings of the expensive primitives on this machine, for sizing and for benchmarks.
struct Speed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Firebase-scrypt hashes/s and RS256 signatures/s on all cores.",
        discussion: "Sign-in costs one scrypt hash and a token refresh one RS256 signature: these are their ceilings.")

    @Option(help: "Seconds per primitive.")
    var seconds: Double = 3

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let rates = try await PrimitiveSpeed.measure(seconds: seconds)
        if json {
            print(#"{"threads":\#(rates.threads),"scrypt_per_s":\#(Int(rates.scryptPerSecond)),"rs256_sign_per_s":\#(Int(rates.rs256SignsPerSecond)),"rs256_verify_per_s":\#(Int(rates.rs256VerifiesPerSecond))}"#)
        } else {
            print("threads:                 \(rates.threads)")
            print("Firebase scrypt (N=2^14, r=8): \(Int(rates.scryptPerSecond)) hashes/s")
            print("RS256 sign (RSA-2048):         \(Int(rates.rs256SignsPerSecond)) signatures/s")
            print("RS256 verify (RSA-2048):       \(Int(rates.rs256VerifiesPerSecond)) verifications/s")
        }
    }
}

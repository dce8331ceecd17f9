import Foundation

/// The Python modules the tests drive (aiosmtpd, authlib, firebase-admin, pyotp, …), probed once per question.
public enum Python {
    /// Whether `python3 -c "import <module>"` succeeds here.
    public static func has(_ module: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import \(module)"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The Python modules the tests drive (aiosmtpd, authlib, firebase-admin, pyotp, …), probed once per question.
public enum Python {
    private static let answers = NSLock()
    nonisolated(unsafe) private static var known: [String: Bool] = [:]

    /// Whether `python3 -c "import <module>"` succeeds here.
    public static func has(_ module: String) -> Bool {
        if let answer = answers.withLock({ known[module] }) { return answer }
        let answer = exitStatus(["/usr/bin/env", "python3", "-c", "import \(module)"]) == 0
        answers.withLock { known[module] = answer }
        return answer
    }

    /// Runs a command to its end with `posix_spawn` and `waitpid`, its output discarded: its exit status, or `nil`
    /// if it could not start. Not Foundation's `Process`: its `waitUntilExit` once missed a probe's exit, and the
    /// whole test run hung while suites were being enabled (a defunct python3, never waited for).
    static func exitStatus(_ argv: [String]) -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, nil, &arguments, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

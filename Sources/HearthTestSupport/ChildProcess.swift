import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with the part of Foundation's `Process` API the tests use.
///
/// Why not `Process`: on Linux, Swift 6.3's `Process.run()` reads 256 bytes of every `/proc/self/fd` entry while it
/// looks for the highest open descriptor, and crashes the whole test run when an entry ends near an unmapped page
/// (swift-corelibs-foundation#5472, fixed after 6.3). Here the child closes what it should not inherit with
/// `closefrom` instead, and nothing scans `/proc`.
///
/// ```swift
/// let child = ChildProcess()
/// child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
/// child.arguments = ["python3", "--version"]
/// let pipe = Pipe()
/// child.standardOutput = pipe
/// try child.run()
/// let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
/// child.waitUntilExit()
/// ```
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String]?
    /// This process's environment when nil.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// A `FileHandle` or a `Pipe` (whose write end the parent then closes); nil or `FileHandle.nullDevice` is
    /// /dev/null. Never this process's own stream: a child that outlived a crashed test run would hold the test
    /// runner's pipe open, and `swift test` would wait for it forever (nginx did). Standard input is /dev/null.
    public var standardOutput: Any?
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var exitStatus: Int32?

    public init() {}

    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts the child; throws the spawn's error (a missing executable, say).
    public func run() throws {
        guard let executable = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle] = []
        for (stream, target) in [(STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)] {
            switch target {
            case let pipe as Pipe:
                posix_spawn_file_actions_adddup2(&actions, pipe.fileHandleForWriting.fileDescriptor, stream)
                if !parentEnds.contains(where: { $0 === pipe.fileHandleForWriting }) { parentEnds.append(pipe.fileHandleForWriting) }
            case let handle as FileHandle where handle !== FileHandle.nullDevice:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, stream)
            default:
                posix_spawn_file_actions_addopen(&actions, stream, "/dev/null", O_WRONLY, 0)
            }
        }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        // Descriptors other tests opened (their pipes above all) must not leak into this child: a pipe's reader sees
        // its end only when every copy of the write end is closed.
        _ = GNUSpawnActions.closeFrom(&actions, 3)
        if let folder = currentDirectoryURL?.path { _ = GNUSpawnActions.changeDirectory(&actions, folder) }
        let argv = [executable] + (arguments ?? [])
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = variables.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        // The child starts with no signal blocked and every handler at its default, whatever the spawning thread had:
        // a test runner's thread may block SIGTERM, and terminate() must still end a server.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        lock.withLock { pid = child }
        for end in parentEnds { try? end.close() }
    }

    /// Whether the child is still running; reaps it once it ended.
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0, exitStatus == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { exitStatus = status } else if reaped == -1 && errno == ECHILD { exitStatus = 0 }
            return exitStatus == nil
        }
    }

    /// Blocks this thread until the child ends.
    public func waitUntilExit() {
        // A short poll rather than a blocking waitpid, so that isRunning and a second waiter never reap twice.
        while isRunning { usleep(2_000) }
    }

    /// The exit code, or the number of the signal that ended the child (as `Process` reports it).
    public var terminationStatus: Int32 {
        lock.withLock {
            guard let status = exitStatus else { return 0 }
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : status & 0x7f
        }
    }

    /// Asks `ready` every `interval` until it gives a value, for as long as the child runs: nil once the child has
    /// ended. A child that dies ends the wait at once, and a slow machine only makes it longer: there is no
    /// wall-clock bound to miss when the suite runs beside other work.
    public func whileRunning<Value>(every interval: Duration = .milliseconds(50), until ready: () async -> Value?)
        async throws -> Value?
    {
        while true {
            if let value = await ready() { return value }
            guard isRunning else { return await ready() }
            try await Task.sleep(for: interval)
        }
    }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Sends `signal` to the child if it has not been reaped yet.
    public func signal(_ signal: Int32) {
        lock.withLock { if pid > 0, exitStatus == nil { _ = kill(pid, signal) } }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29): Swift's Glibc module leaves
/// out what needs `_GNU_SOURCE`, so they are looked up by name.
private enum GNUSpawnActions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom = unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: CloseFrom.self)
    static let changeDirectory: ChangeDirectory = unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: ChangeDirectory.self)

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("\(name) is missing: the tests need glibc 2.34 or later")
        }
        return address
    }
}

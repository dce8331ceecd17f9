import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium for tests, driven through chromedriver's W3C WebDriver API (Debian's `chromium` and
/// `chromium-driver`).
///
/// ```swift
/// let browser = try await Browser.start()
/// defer { browser.stop() }
/// try await browser.open("http://127.0.0.1:9099/__/auth/action?…")
/// try await browser.type("n3w-password", into: "#newPassword")
/// ```
public final class Browser: @unchecked Sendable {
    public static let chromium = "/usr/bin/chromium"
    public static let chromedriver = "/usr/bin/chromedriver"

    /// Why Chromium cannot run here, or `nil`.
    public static func unavailableReason() -> String? {
        for path in [chromium, chromedriver] where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is missing (apt-get install chromium chromium-driver; .ci/run does)"
        }
        return nil
    }

    private let driver: ChildProcess
    private let base: URL
    private let session: String
    private let profile: URL

    public static func start() async throws -> Browser {
        let port = try freePort()
        let driver = ChildProcess()
        driver.executableURL = URL(fileURLWithPath: chromedriver)
        driver.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let ready = try await driver.whileRunning(every: .milliseconds(100)) {
            (try? await request(base, "GET", "status")).flatMap { $0["ready"] as? Bool } == true ? true : nil
        }
        guard ready == true else { throw BrowserError("chromedriver ended before it was ready") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-chromium-\(UUID().uuidString)")
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": chromium, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=\(profile.path)", "--lang=en-US",
            ]],
        ]]]
        do {
            let created = try await request(base, "POST", "session", capabilities)
            guard let session = created["sessionId"] as? String else { throw BrowserError("no session: \(created)") }
            return Browser(driver: driver, base: base, session: session, profile: profile)
        } catch {
            kill(driver.processIdentifier, SIGKILL)
            throw error
        }
    }

    private init(driver: ChildProcess, base: URL, session: String, profile: URL) {
        self.driver = driver
        self.base = base
        self.session = session
        self.profile = profile
    }

    public func stop() {
        _ = try? Self.exchange(port: base.port ?? 0, method: "DELETE", path: "/session/\(session)", body: nil)
        if driver.isRunning { kill(driver.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: profile)
    }

    public func open(_ url: String) async throws {
        _ = try await command("POST", "url", ["url": url])
    }

    public func currentURL() async throws -> String {
        try await command("GET", "url") as? String ?? ""
    }

    /// The visible text of the first element matching `selector`, waiting up to `timeout` for it to appear.
    public func text(of selector: String, timeout: TimeInterval = 60) async throws -> String {
        let element = try await find(selector, timeout: timeout)
        return try await command("GET", "element/\(element)/text") as? String ?? ""
    }

    public func attribute(_ name: String, of selector: String) async throws -> String? {
        try await onElement(selector) { try await command("GET", "element/\($0)/attribute/\(name)") as? String }
    }

    public func type(_ text: String, into selector: String) async throws {
        try await onElement(selector) { _ = try await command("POST", "element/\($0)/value", ["text": text]) }
    }

    public func click(_ selector: String) async throws {
        try await onElement(selector) { _ = try await command("POST", "element/\($0)/click", [:]) }
    }

    /// Finds `selector` and acts on it; an element the page replaced in between (a re-render: WebDriver's "stale
    /// element reference") is found again, for up to 60 s, so a slow machine's timing cannot fail a step.
    private func onElement<T>(_ selector: String, _ act: (String) async throws -> T) async throws -> T {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let element = try await find(selector, timeout: 60)
            do {
                return try await act(element)
            } catch let error as BrowserError where error.description.contains("stale element") && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page and returns its JSON result.
    public func evaluate(_ script: String, _ args: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": script, "args": args])
    }

    /// Resizes the window (a phone is 360 wide).
    public func setWindowSize(width: Int, height: Int) async throws {
        _ = try await command("POST", "window/rect", ["width": width, "height": height])
    }

    /// A PNG of the window as it is now.
    public func screenshot() async throws -> Data {
        Data(base64Encoded: try await command("GET", "screenshot") as? String ?? "") ?? Data()
    }

    /// Adds a WebDriver virtual authenticator (a platform passkey authenticator: CTAP2, internal transport, resident
    /// keys, user verification) and returns its id.
    public func addVirtualAuthenticator(userVerified: Bool = true) async throws -> String {
        let id = try await command("POST", "webauthn/authenticator", [
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": true, "hasUserVerification": true,
            "isUserConsenting": true, "isUserVerified": userVerified,
        ])
        guard let id = id as? String else { throw BrowserError("no authenticator id: \(String(describing: id))") }
        return id
    }

    /// The credentials a virtual authenticator holds (`credentialId`, `rpId`, `signCount`, …).
    public func virtualCredentials(_ authenticator: String) async throws -> [[String: Any]] {
        try await command("GET", "webauthn/authenticator/\(authenticator)/credentials") as? [[String: Any]] ?? []
    }

    /// Whether the virtual authenticator's user verification succeeds from now on.
    public func setUserVerified(_ authenticator: String, _ verified: Bool) async throws {
        _ = try await command("POST", "webauthn/authenticator/\(authenticator)/uv", ["isUserVerified": verified])
    }

    public func pageSource() async throws -> String {
        try await command("GET", "source") as? String ?? ""
    }

    private func find(_ selector: String, timeout: TimeInterval) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            do {
                let found = try await command("POST", "element", ["using": "css selector", "value": selector])
                if let element = (found as? [String: Any])?.values.first as? String { return element }
            } catch where Date() < deadline {}
            guard Date() < deadline else {
                throw BrowserError("no element \(selector) on \(try await currentURL()):\n\(try await pageSource())")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.request(base, method, "session/\(session)/\(path)", body)["__value"]
    }

    /// One WebDriver call; returns `value` (under `__value` when it is not an object).
    private static func request(_ base: URL, _ method: String, _ path: String, _ body: [String: Any]? = nil)
        async throws -> [String: Any]
    {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let port = base.port ?? 0
        let (status, data) = try await blocking {
            try Self.exchange(port: port, method: method, path: "/" + path, body: payload)
        }
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let value = json["value"]
        if status >= 400 { throw BrowserError("WebDriver \(method) \(path): \(status) \(value ?? "")") }
        var result = value as? [String: Any] ?? [:]
        result["__value"] = value is NSNull ? nil : value
        return result
    }
}

extension Browser {
    /// One HTTP/1.1 exchange on a fresh loopback connection. (chromedriver writes headers as `Name:value`, which
    /// Foundation's URLSession on Linux refuses, so this speaks HTTP itself.)
    static func exchange(port: Int, method: String, path: String, body: Data?) throws -> (Int, Data) {
        let fd = try connectToLoopback(port: port, receiveTimeout: 120)
        defer { close(fd) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        var bytes = Array((request + "\r\n").utf8) + Array(body ?? Data())
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { all in uninterrupted { send(fd, all.baseAddress! + offset, all.count - offset, Int32(MSG_NOSIGNAL)) } }
            guard written > 0 else { throw BrowserError("send failed (errno \(errno))") }
            offset += written
        }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        // Read until the body is complete (Content-Length) or the peer closes.
        while true {
            if let split = response.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                   let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                   response.count - split.upperBound >= length {
                    break
                }
            }
            let count = buffer.withUnsafeMutableBytes { all in uninterrupted { recv(fd, all.baseAddress, all.count, 0) } }
            if count < 0 { throw BrowserError("WebDriver \(method) \(path): receive failed (errno \(errno))") }
            if count == 0 { break }
            response += buffer[0..<count]
        }
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { throw BrowserError("no HTTP response") }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Data(response[split.upperBound...]))
    }
}

/// Repeats a system call that a signal interrupted. Wherever Foundation's `Process` runs in the test process it
/// catches SIGCHLD, and with SO_RCVTIMEO set `recv` and `send` are never restarted: every helper process that exits
/// during a test would otherwise cut a WebDriver exchange short (that was a CI failure: "no HTTP response").
func uninterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

public struct BrowserError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A blocking TCP connection to 127.0.0.1:`port` whose reads give up after `receiveTimeout` seconds; the caller
/// closes it. For tests that speak HTTP by hand (to send what no client library would).
///
/// ```swift
/// let fd = try connectToLoopback(port: port)
/// defer { close(fd) }
/// _ = send(fd, request, request.count, Int32(MSG_NOSIGNAL))
/// ```
public func connectToLoopback(port: Int, receiveTimeout: Int = 30) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BrowserError("socket() failed") }
    var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    // An interrupted connect goes on in the background (EINTR, then EISCONN or EALREADY on a retry), so a
    // loopback connect that a signal cut short is given a moment instead of being repeated.
    if connected != 0 && errno == EINTR {
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = uninterrupted { poll(&descriptor, 1, 5000) }
    } else if connected != 0 {
        let reason = errno
        close(fd)
        throw BrowserError("cannot connect to 127.0.0.1:\(port) (errno \(reason))")
    }
    return fd
}

/// A TCP port nothing listens on right now (for servers whose address must be known before they start), and never
/// one this process handed out before: tests run in parallel, and a port released by one `freePort()` may come back
/// from the next before its server binds it (two servers on one port: one test talks to the other's server).
///
/// The port comes from below the kernel's ephemeral range, never from `bind(0)`: a server that binds port 0 (the
/// live test servers) or an outgoing connection's source port is drawn from that range, and could otherwise take
/// the port between this answer and the bind of the server it was meant for.
public func freePort() throws -> Int {
    let candidates = reservablePorts
    for _ in 0..<500 {
        let port = Int.random(in: candidates)
        guard handedOutPorts.withLock({ !$0.contains(port) }), canBind(port) else { continue }
        if handedOutPorts.withLock({ $0.insert(port).inserted }) { return port }
    }
    throw BrowserError("no free port below the ephemeral range (\(candidates))")
}

/// The first of `count` consecutive free loopback ports (a cluster whose nodes take the ports after its base).
public func freePorts(_ count: Int) throws -> Int {
    let candidates = reservablePorts
    for _ in 0..<500 {
        let base = Int.random(in: candidates.lowerBound...(candidates.upperBound - count))
        let block = Set(base..<(base + count))
        guard handedOutPorts.withLock({ $0.isDisjoint(with: block) }), block.allSatisfy(canBind) else { continue }
        if handedOutPorts.withLock({ ports in
            guard ports.isDisjoint(with: block) else { return false }
            ports.formUnion(block)
            return true
        }) { return base }
    }
    throw BrowserError("no \(count) consecutive free ports below the ephemeral range (\(candidates))")
}

private let handedOutPorts = LockedPorts()

private final class LockedPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: Set<Int> = []
    func withLock<T>(_ body: (inout Set<Int>) -> T) -> T { lock.withLock { body(&ports) } }
}

/// Ports between 10000 and the start of the ephemeral range (Linux's `ip_local_port_range`; 32768 where it cannot
/// be read, below both Linux's and macOS's defaults).
private let reservablePorts: ClosedRange<Int> = {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
    return 10000...max(low - 1, 20000)
}()

private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return bound == 0
}

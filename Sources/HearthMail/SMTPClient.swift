import Foundation
import HearthCore
import NIOCore
import NIOPosix
import NIOSSL

/// Where and how to hand mail over: an SMTP submission server.
public struct SMTPConfiguration: Sendable, Codable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Codable, CaseIterable {
        /// Plain TCP (a local relay only: credentials are refused over it).
        case none
        /// Plain TCP upgraded with `STARTTLS` before anything else is said (port 587). A server that does not
        /// offer it is an error, never a silent fallback to plain text.
        case startTLS = "starttls"
        /// TLS from the first byte (port 465).
        case tls
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// A PEM file of extra trust roots (a private CA); the system's roots are always trusted.
    public var caFile: String?
    /// The name given in `EHLO`.
    public var heloName: String
    /// Seconds allowed for the connection and for each reply.
    public var timeout: Double

    public init(host: String, port: Int = 587, security: Security = .startTLS, username: String? = nil,
                password: String? = nil, caFile: String? = nil, heloName: String = "localhost", timeout: Double = 30) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
        self.heloName = heloName
        self.timeout = timeout
    }
}

/// Why a hand-over failed. ``isPermanent`` tells a retry apart from a bounce.
public enum SMTPError: Error, Equatable, CustomStringConvertible {
    /// The server answered `code` to `command` (the command's name only; never its arguments).
    case rejected(command: String, code: Int, text: String)
    case connectionClosed
    case timeout
    case startTLSUnavailable
    case authenticationUnavailable
    case credentialsNeedTLS
    case replyTooLong

    /// A 5xx reply: trying again will not help.
    public var isPermanent: Bool {
        if case .rejected(_, let code, _) = self { return (500..<600).contains(code) }
        return [.credentialsNeedTLS].contains(self)
    }

    public var description: String {
        switch self {
        case .rejected(let command, let code, let text): "SMTP server answered \(command) with \(code) \(text)"
        case .connectionClosed: "SMTP server closed the connection"
        case .timeout: "SMTP server did not answer in time"
        case .startTLSUnavailable: "SMTP server does not offer STARTTLS; set security to \"tls\" or \"none\""
        case .authenticationUnavailable: "SMTP server offers neither AUTH PLAIN nor AUTH LOGIN"
        case .credentialsNeedTLS: "SMTP credentials are only sent over TLS; set security to \"starttls\" or \"tls\""
        case .replyTooLong: "SMTP server sent an over-long reply"
        }
    }
}

/// An SMTP client on SwiftNIO: one connection per message (`EHLO`, optional `STARTTLS`, `AUTH PLAIN` or
/// `AUTH LOGIN`, `MAIL`/`RCPT`/`DATA`, `QUIT`).
///
/// ```swift
/// let client = SMTPClient(configuration: .init(host: "smtp.example.com", username: "apikey", password: secret))
/// try await client.send(message)
/// ```
public struct SMTPClient: Sendable {
    public let configuration: SMTPConfiguration
    let group: any EventLoopGroup

    public init(configuration: SMTPConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        self.group = group
    }

    /// Hands `message` to the server. Returns once the server accepted the data (`250` after `.`).
    public func send(_ message: MailMessage) async throws {
        let server = "\(configuration.host):\(configuration.port)"
        try await Traced.client("smtp send", ["server.address": server]) { try await deliver(message) }
    }

    private func deliver(_ message: MailMessage) async throws {
        let configuration = self.configuration
        if configuration.username != nil, configuration.security == .none { throw SMTPError.credentialsNeedTLS }
        let tls = try makeTLSContext()
        let timeout = TimeAmount.milliseconds(Int64(configuration.timeout * 1000))
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .connect(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if configuration.security == .tls {
                        try pipeline.addHandler(try Self.tlsHandler(tls, host: configuration.host))
                    }
                    try pipeline.addHandler(IdleStateHandler(readTimeout: timeout))
                    try pipeline.addHandler(SMTPTimeoutHandler())
                    try pipeline.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var session = SMTPSession(replies: inbound.makeAsyncIterator(), outbound: outbound)
            try await session.expect(220, after: "greeting")
            var extensions = try await session.ehlo(configuration.heloName)
            if configuration.security == .startTLS {
                guard extensions.contains("STARTTLS") else { throw SMTPError.startTLSUnavailable }
                try await session.command("STARTTLS", expect: 220)
                // TLS goes first in the pipeline: from here every byte each way is encrypted.
                let raw = channel.channel
                try await raw.eventLoop.submit {
                    try raw.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: configuration.host),
                                                               position: .first)
                }.get()
                extensions = try await session.ehlo(configuration.heloName)
            }
            if let username = configuration.username {
                try await session.authenticate(username: username, password: configuration.password ?? "",
                                               mechanisms: extensions)
            }
            try await session.command("MAIL FROM:<\(MIMEWriter.singleLine(message.from.email))>", name: "MAIL",
                                      expect: 250)
            try await session.command("RCPT TO:<\(MIMEWriter.singleLine(message.to.email))>", name: "RCPT",
                                      expect: 250, 251)
            try await session.command("DATA", expect: 354)
            try await session.write(MIMEWriter.dotStuffed(MIMEWriter.render(message)))
            try await session.expect(250, after: "DATA")
            // The message is accepted; a failing QUIT changes nothing.
            try? await session.command("QUIT", expect: 221)
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext? {
        guard configuration.security != .none else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile { tls.additionalTrustRoots = [.file(caFile)] }
        return try NIOSSLContext(configuration: tls)
    }

    private static func tlsHandler(_ context: NIOSSLContext?, host: String) throws -> NIOSSLClientHandler {
        guard let context else { throw SMTPError.startTLSUnavailable }
        // SNI takes names only; an IP address is still checked against the certificate's IP SANs.
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }
}

/// One reply: its code and the text of its lines.
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]
    var text: String { lines.joined(separator: " ") }
}

/// The conversation: commands out, replies in.
struct SMTPSession {
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    mutating func next() async throws -> SMTPReply {
        guard let reply = try await replies.next() else { throw SMTPError.connectionClosed }
        return reply
    }

    mutating func expect(_ codes: Int..., after command: String) async throws {
        let reply = try await next()
        guard codes.contains(reply.code) else {
            throw SMTPError.rejected(command: command, code: reply.code, text: reply.text)
        }
    }

    func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends `line`; `name` is what errors and logs may show (so `AUTH` arguments never appear in them).
    mutating func command(_ line: String, name: String? = nil, expect codes: Int...) async throws {
        try await write(line + "\r\n")
        let reply = try await next()
        guard codes.contains(reply.code) else {
            throw SMTPError.rejected(command: name ?? line, code: reply.code, text: reply.text)
        }
    }

    /// `EHLO`: the extension keywords the server offers (`STARTTLS`, `AUTH PLAIN LOGIN`, …), upper-cased.
    mutating func ehlo(_ name: String) async throws -> Set<String> {
        try await write("EHLO \(MIMEWriter.singleLine(name))\r\n")
        let reply = try await next()
        guard reply.code == 250 else { throw SMTPError.rejected(command: "EHLO", code: reply.code, text: reply.text) }
        var keywords: Set<String> = []
        for line in reply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ").map(String.init)
            guard let first = words.first else { continue }
            keywords.insert(first)
            if first == "AUTH" { for mechanism in words.dropFirst() { keywords.insert("AUTH=" + mechanism) } }
        }
        return keywords
    }

    /// `AUTH PLAIN` when offered, else `AUTH LOGIN`.
    mutating func authenticate(username: String, password: String, mechanisms: Set<String>) async throws {
        if mechanisms.contains("AUTH=PLAIN") {
            let token = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
            try await command("AUTH PLAIN \(token)", name: "AUTH PLAIN", expect: 235)
        } else if mechanisms.contains("AUTH=LOGIN") {
            try await command("AUTH LOGIN", expect: 334)
            try await command(Data(username.utf8).base64EncodedString(), name: "AUTH LOGIN username", expect: 334)
            try await command(Data(password.utf8).base64EncodedString(), name: "AUTH LOGIN password", expect: 235)
        } else {
            throw SMTPError.authenticationUnavailable
        }
    }
}

/// Splits the byte stream into replies: lines `NNN-text` continue a reply, `NNN text` ends it.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    private var pending: [String] = []
    static let maximumLine = 4096

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLine { throw SMTPError.replyTooLong }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex + 1
        guard var bytes = buffer.readBytes(length: length) else { return .needMoreData }
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
            throw SMTPError.rejected(command: "reply", code: 0, text: "malformed reply")
        }
        let more = bytes.count > 3 && bytes[3] == UInt8(ascii: "-")
        pending.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        if pending.count > 100 { throw SMTPError.replyTooLong }
        if more { return .continue }
        context.fireChannelRead(wrapInboundOut(SMTPReply(code: code, lines: pending)))
        pending = []
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue, buffer.readableBytes > 0 {}
        return .needMoreData
    }
}

/// Turns a read timeout into an error on the reply stream, and closes the connection.
final class SMTPTimeoutHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.fireErrorCaught(SMTPError.timeout)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

extension SMTPConfiguration {
    /// Every key but `host` is optional in a config file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let security = try container.decodeIfPresent(Security.self, forKey: .security) ?? .startTLS
        self.init(host: try container.decode(String.self, forKey: .host),
                  port: try container.decodeIfPresent(Int.self, forKey: .port) ?? security.defaultPort,
                  security: security,
                  username: try container.decodeIfPresent(String.self, forKey: .username),
                  password: try container.decodeIfPresent(String.self, forKey: .password),
                  caFile: try container.decodeIfPresent(String.self, forKey: .caFile),
                  heloName: try container.decodeIfPresent(String.self, forKey: .heloName) ?? "localhost",
                  timeout: try container.decodeIfPresent(Double.self, forKey: .timeout) ?? 30)
    }

    /// Reads `smtp://user:password@host:587` (STARTTLS), `smtps://user:password@host:465` (TLS from the start) or
    /// `smtp://host:25?security=none` (a local relay); `?ca=/path.pem` adds a trust root. User and password are
    /// percent-decoded. Returns `nil` for anything else.
    ///
    /// ```swift
    /// let smtp = SMTPConfiguration(url: "smtps://apikey:s3cret@smtp.example.com")
    /// ```
    public init?(url: String) {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty,
              let scheme = components.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme)
        else { return nil }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                               uniquingKeysWith: { _, last in last })
        var security: Security = scheme == "smtps" ? .tls : .startTLS
        if let value = query["security"] {
            guard let chosen = Security(rawValue: value.lowercased()) else { return nil }
            security = chosen
        }
        self.init(host: host, port: components.port ?? security.defaultPort, security: security,
                  username: components.percentEncodedUser?.removingPercentEncoding,
                  password: components.percentEncodedPassword?.removingPercentEncoding, caFile: query["ca"])
    }
}

extension SMTPConfiguration.Security {
    /// 587 for submission with STARTTLS, 465 for TLS, 25 for a plain relay.
    public var defaultPort: Int {
        switch self {
        case .none: 25
        case .startTLS: 587
        case .tls: 465
        }
    }
}

/// Printed without the password: ServiceLifecycle describes the services it starts at debug level, and the
/// outbox sender holds this configuration.
extension SMTPConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "SMTP \(username.map { "\($0)@" } ?? "")\(host):\(port) (\(security.rawValue))\(password == nil ? "" : ", password <redacted>")"
    }

    public var debugDescription: String { description }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange. The SDK's only way out: tests swap in a fake, apps may add logging or pinning.
///
/// ```swift
/// struct Logging: AuthTransport {
///     let next = URLSessionTransport()
///     func send(_ request: AuthHTTPRequest) async throws -> AuthHTTPResponse {
///         print(request.method, request.url.path)
///         return try await next.send(request)
///     }
/// }
/// ```
public protocol AuthTransport: Sendable {
    func send(_ request: AuthHTTPRequest) async throws -> AuthHTTPResponse
}

public struct AuthHTTPRequest: Sendable, Equatable {
    public var url: URL
    public var method: String
    public var headers: [String: String]
    public var body: Data?

    public init(url: URL, method: String = "POST", headers: [String: String] = [:], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

public struct AuthHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// `URLSession`, with a 30-second timeout per request.
public struct URLSessionTransport: AuthTransport {
    public init() {}

    public func send(_ request: AuthHTTPRequest) async throws -> AuthHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: 30)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
        return AuthHTTPResponse(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }
}

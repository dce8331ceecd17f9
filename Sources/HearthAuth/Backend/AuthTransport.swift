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
        // A data task, not `data(for:)`: that async form needs watchOS 8, and FirebaseAuth 12 (so HearthAuth) runs
        // on watchOS 7. Cancelling the calling task cancels the request.
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<AuthHTTPResponse, any Error>) in
                let task = URLSession.shared.dataTask(with: urlRequest) { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    continuation.resume(returning: AuthHTTPResponse(
                        status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data ?? Data()))
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// The running task, for a cancellation that may arrive before or after it exists.
    private final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionDataTask?
        private var cancelled = false

        func set(_ task: URLSessionDataTask) {
            let cancelNow = lock.locked { () -> Bool in
                self.task = task
                return cancelled
            }
            if cancelNow { task.cancel() }
        }

        func cancel() {
            let task = lock.locked { () -> URLSessionDataTask? in
                cancelled = true
                return self.task
            }
            task?.cancel()
        }
    }
}

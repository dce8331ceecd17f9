import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// For calls to the app's own services (blocking functions, webhook receivers): a refused connection fails the
    /// call at once instead of being retried until the call's deadline, as `HTTPClient.shared` does. A function
    /// that is down then answers `BLOCKING_FUNCTION_ERROR_RESPONSE` in milliseconds, not after 7 seconds, and a
    /// webhook retry is scheduled by the worker's back-off rather than spent waiting (measured: 15 s per attempt
    /// before, with the receiver down).
    public static let toAppServices: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(3)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

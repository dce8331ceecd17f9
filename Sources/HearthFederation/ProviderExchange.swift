import AsyncHTTPClient
import HearthCore
import NIOCore

extension HTTPClient {
    /// One request to an identity provider and its whole answer (at most `limit` bytes). A provider that cannot be
    /// reached, does not answer in time or sends an oversized answer is `INVALID_IDP_RESPONSE`, never an internal
    /// error; callers judge the status.
    func askProvider(_ request: HTTPClientRequest, timeout: TimeAmount,
                     limit: Int = 1 << 20) async throws -> (response: HTTPClientResponse, body: ByteBuffer) {
        let response: HTTPClientResponse
        do {
            response = try await execute(request, timeout: timeout)
        } catch {
            throw AuthFailure.invalidIDPResponse("the identity provider cannot be reached")
        }
        do {
            return (response, try await response.body.collect(upTo: limit))
        } catch {
            throw AuthFailure.invalidIDPResponse("the identity provider's answer could not be read")
        }
    }
}

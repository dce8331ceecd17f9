import Foundation
import HearthWire
import Hummingbird

// The wire's replies, as handlers return them: encoded by the context's `responseEncoder` (``WireResponseEncoder``).
extension AdminCreateAccountResponse: ResponseEncodable {}
extension BatchCreateResponse: ResponseEncodable {}
extension BatchDeleteResponse: ResponseEncodable {}
extension BatchGetResponse: ResponseEncodable {}
extension CreateAuthUriResponse: ResponseEncodable {}
extension CreateSessionCookieResponse: ResponseEncodable {}
extension DeleteAccountResponse: ResponseEncodable {}
extension GetProjectConfigResponse: ResponseEncodable {}
extension LookupResponse: ResponseEncodable {}
extension MFATokensResponse: ResponseEncodable {}
extension PasskeyTokensResponse: ResponseEncodable {}
extension ProjectConfigResource: ResponseEncodable {}
extension QueryAccountsResponse: ResponseEncodable {}
extension ResetPasswordResponse: ResponseEncodable {}
extension SecondFactorRequiredResponse: ResponseEncodable {}
extension SendOobCodeResponse: ResponseEncodable {}
extension SendVerificationCodeResponse: ResponseEncodable {}
extension SignInWithCustomTokenResponse: ResponseEncodable {}
extension SignInWithEmailLinkResponse: ResponseEncodable {}
extension SignInWithGameCenterResponse: ResponseEncodable {}
extension SignInWithIdpResponse: ResponseEncodable {}
extension SignInWithPasswordResponse: ResponseEncodable {}
extension SignInWithPhoneNumberResponse: ResponseEncodable {}
extension SignUpResponse: ResponseEncodable {}
extension StartMFAEnrollmentResponse: ResponseEncodable {}
extension StartMFASignInResponse: ResponseEncodable {}
extension StartPasskeyEnrollmentResponse: ResponseEncodable {}
extension StartPasskeySignInResponse: ResponseEncodable {}
extension TokenResponse: ResponseEncodable {}
extension UpdateAccountResponse: ResponseEncodable {}
extension NoBody: ResponseEncodable {}

/// Encodes replies as Google's servers write them: keys sorted, slashes unescaped, `application/json`.
struct WireResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        json(value)
    }
}

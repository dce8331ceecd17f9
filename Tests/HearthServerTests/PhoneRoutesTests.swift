import Foundation
import HearthCore
import HTTPTypes
import HearthWire
import Testing

/// `PhoneRoutes`: phone numbers as a first factor through the router, against the emulator's captures.
@Suite struct PhoneRoutesTests {
    @Test func phoneSignInLinkingAndTemporaryProofs() async throws {
        let app = TestApp(mode: .emulator)
        try await app.run { client in
            let invalid = try Fixture("sendVerificationCode-invalid-phone-number")
            let bad = try await client.post(invalid.path, invalid.requestBody)
            #expect(bad.errorMessage == "INVALID_PHONE_NUMBER : Invalid format.")
            func verified(_ number: String) async throws -> (String, String) {
                let sent = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": number])
                expectSameShape(try sent.object(), try Fixture("sendVerificationCode-phone").body)
                let sms = try await MFARoutesTests.lastCode(client)
                #expect(sms.sessionInfo == sent["sessionInfo"] as? String)
                return (sms.sessionInfo, sms.code)
            }
            var (session, code) = try await verified("+15555550100")
            let wrong = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                              ["sessionInfo": session, "code": code == "000000" ? "111111" : "000000"])
            #expect(wrong.errorMessage == "INVALID_CODE")
            let phoneUser = try await client.post(Endpoints.signInWithPhoneNumber.path, ["sessionInfo": session, "code": code])
            #expect(phoneUser["isNewUser"] as? Bool == true)
            let ownerID = try #require(phoneUser["localId"] as? String)
            #expect(try decodeJWT(phoneUser["idToken"] as! String)["phone_number"] as? String == "+15555550100")

            (session, code) = try await verified("+15555550100")
            let again = try await client.post(Endpoints.signInWithPhoneNumber.path, ["sessionInfo": session, "code": code])
            #expect(again["isNewUser"] as? Bool == false && again["localId"] as? String == ownerID)

            // Linking the same number to another account: a temporary proof, which signs in to the owner.
            let other = try await client.signUp("linker@example.com")
            (session, code) = try await verified("+15555550100")
            let taken = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                              ["sessionInfo": session, "code": code, "idToken": other["idToken"]!])
            let proof = try #require(taken["temporaryProof"] as? String, "\(taken.text)")
            #expect(taken["idToken"] == nil)
            let viaProof = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                                 ["temporaryProof": proof, "phoneNumber": "+15555550100"])
            #expect(viaProof["localId"] as? String == ownerID)
            let reusedProof = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                                    ["temporaryProof": proof, "phoneNumber": "+15555550100"])
            #expect(reusedProof.errorMessage == "INVALID_SESSION_INFO", "a temporary proof is single use")

            (session, code) = try await verified("+15555550177")
            let linked = try await client.post(Endpoints.signInWithPhoneNumber.path,
                                               ["sessionInfo": session, "code": code, "idToken": other["idToken"]!])
            #expect(linked["localId"] as? String == other["localId"] as? String && linked["phoneNumber"] as? String == "+15555550177")
        }
    }

    /// Firebase's first-factor rules around SMS second factors, and the emulator's code list: a used code leaves
    /// it; a phone session cannot enrol a second factor; a number cannot be linked to (or, in emulator mode, sign
    /// in to) an account with second factors; a temporary proof for a taken number is answered once.
    @Test func phoneFirstFactorsAndSecondFactorsDoNotMix() async throws {
        try await TestApp(mode: .emulator).run { client in
            func phoneSignIn(_ number: String, idToken: String? = nil) async throws -> Reply {
                let sent = try await client.post(Endpoints.sendVerificationCode.path, ["phoneNumber": number])
                let session = try #require(sent["sessionInfo"] as? String, "\(sent.text)")
                let code = try await MFARoutesTests.lastCode(client)
                var body: [String: Any] = ["sessionInfo": session, "code": code.code]
                body["idToken"] = idToken
                return try await client.post(Endpoints.signInWithPhoneNumber.path, body)
            }
            let phoneUser = try await phoneSignIn("+15555550140")
            let list = try await client.send(.get, "/emulator/v1/projects/demo-project/verificationCodes", key: nil)
            #expect((list["verificationCodes"] as? [Any])?.isEmpty == true, "a used code leaves the list: \(list.text)")
            let phoneToken = try #require(phoneUser["idToken"] as? String)
            let refused = try await client.post(Endpoints.startMFAEnrollment.path, [
                "idToken": phoneToken, "phoneEnrollmentInfo": ["phoneNumber": "+15555550141"]])
            #expect(refused.errorMessage == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.", "\(refused.text)")

            let (_, idToken) = try await MFARoutesTests.verifiedUser(client)
            _ = try await client.post(Endpoints.startMFAEnrollment.path, [
                "idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": "+15555550142"]])
            let sms = try await MFARoutesTests.lastCode(client)
            let enrolled = try await client.post(Endpoints.finalizeMFAEnrollment.path, [
                "idToken": idToken, "phoneVerificationInfo": ["sessionInfo": sms.sessionInfo, "code": sms.code]])
            let mfaToken = try #require(enrolled["idToken"] as? String, "\(enrolled.text)")
            let link = try await phoneSignIn("+15555550143", idToken: mfaToken)
            #expect(link.errorMessage == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.", "\(link.text)")

            let anonymous = try await client.post(Endpoints.signUp.path, ["returnSecureToken": true])
            let taken = try await phoneSignIn("+15555550140", idToken: anonymous["idToken"] as? String)
            let proof = try #require(taken["temporaryProof"] as? String, "\(taken.text)")
            let again = try await client.post(Endpoints.signInWithPhoneNumber.path, [
                "idToken": anonymous["idToken"] as Any, "phoneNumber": "+15555550140", "temporaryProof": proof])
            #expect(again.errorMessage == "PHONE_NUMBER_EXISTS", "\(again.text)")

            let refresh = try await client.post("/securetoken.googleapis.com/v1/token",
                                                 ["grant_type": "refresh_token", "refresh_token": phoneUser["refreshToken"] as Any])
            #expect(refresh["project_id"] as? String == "12345", "emulator mode's project number, as Firebase's emulator")
        }
    }
}

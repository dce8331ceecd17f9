import Foundation

/// What Hearth sends a blocking function and reads back, as Identity Platform does: the request is
/// `POST {"data": {"jwt": …}}`, the JWT signed RS256 with the project's key (the one its ID tokens use, published in
/// the x509 form firebase-functions fetches), carrying the event and the account in Firebase's snake_case shape.
///
/// ```swift
/// let jwt = try BlockingFunctionToken.sign(event: "beforeCreate", user: user, facts: event, functionURI: uri,
///                                          forwarding: blocking, project: project, issuerPrefix: prefix, now: now)
/// ```
public enum BlockingFunctionToken {
    /// How long the JWT is valid: a function must answer within 7 seconds anyway.
    public static let lifetime: Int64 = 300

    public static func sign(event eventType: String, user: UserRecord, facts: AccountEvent, functionURI: String,
                            forwarding: BlockingFunctions, project: ProjectContext, issuerPrefix: String,
                            caller: CallerInfo = CallerInfo.current, now: Date) throws -> String {
        var claims = common(event: eventType, functionURI: functionURI, project: project, issuerPrefix: issuerPrefix,
                            caller: caller, now: now)
        claims["sub"] = user.localID
        claims["user_record"] = userRecord(user)
        claims["tenant_id"] = user.tenantID
        claims["sign_in_method"] = facts.signInMethod
        claims["sign_in_second_factor"] = facts.secondFactor
        claims["raw_user_info"] = facts.rawUserInfo
        claims["sign_in_attributes"] = ClaimsJSON.object(facts.signInAttributes)
        if forwarding.forwardIDToken { claims["oauth_id_token"] = facts.oauthIDToken }
        if forwarding.forwardAccessToken {
            claims["oauth_access_token"] = facts.oauthAccessToken
            claims["oauth_token_secret"] = facts.oauthTokenSecret
            claims["oauth_expires_in"] = facts.oauthExpiresIn
        }
        if forwarding.forwardRefreshToken { claims["oauth_refresh_token"] = facts.oauthRefreshToken }
        return try signed(claims, project: project)
    }

    /// The token of a `beforeSendEmail` or `beforeSendSms` event: the address or number and the message's type
    /// (`email_type`, `sms_type`). Like Identity Platform's it has no `sub` and no `user_record` (firebase-admin
    /// exempts these two events from its `sub` check for that reason).
    public static func sign(message: OutgoingMessage, functionURI: String, project: ProjectContext,
                            issuerPrefix: String, caller: CallerInfo = CallerInfo.current, now: Date) throws -> String {
        var claims = common(event: message.eventType, functionURI: functionURI, project: project,
                            issuerPrefix: issuerPrefix, caller: caller, now: now)
        switch message.channel {
        case .email(let type, let address):
            claims["email"] = address
            claims["email_type"] = type
        case .sms(let type, let number):
            claims["phone_number"] = number
            claims["sms_type"] = type
        }
        claims["tenant_id"] = message.tenantID
        return try signed(claims, project: project)
    }

    private static func common(event: String, functionURI: String, project: ProjectContext, issuerPrefix: String,
                               caller: CallerInfo, now: Date) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuerPrefix + project.id, "aud": functionURI, "iat": now.epochSeconds,
            "exp": now.epochSeconds + lifetime, "event_id": SecureRandom.token(byteCount: 16), "event_type": event,
            "ip_address": caller.ipAddress ?? "", "user_agent": caller.userAgent ?? "",
        ]
        claims["locale"] = caller.locale
        return claims
    }

    private static func signed(_ claims: [String: Any], project: ProjectContext) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try JWS.sign(payload: Array(payload), with: project.keys.active)
    }

    /// The account as firebase-functions' `AuthUserRecord` reads it.
    static func userRecord(_ user: UserRecord) -> [String: Any] {
        var record: [String: Any] = [
            "uid": user.localID, "email_verified": user.emailVerified, "disabled": user.disabled,
            "metadata": ["creation_time": user.createdAt.epochMilliseconds]
                .merging(user.lastLoginAt.map { ["last_sign_in_time": $0.epochMilliseconds] } ?? [:]) { $1 },
            "provider_data": user.providers.map { provider -> [String: Any] in
                var info: [String: Any] = ["uid": provider.rawID, "provider_id": provider.providerID]
                info["email"] = provider.email
                info["display_name"] = provider.displayName
                info["photo_url"] = provider.photoURL
                info["phone_number"] = provider.phoneNumber
                return info
            },
        ]
        record["email"] = user.email
        record["display_name"] = user.displayName
        record["photo_url"] = user.photoURL
        record["phone_number"] = user.phoneNumber
        record["tenant_id"] = user.tenantID
        record["custom_claims"] = ClaimsJSON.object(user.customAttributes)
        record["tokens_valid_after_time"] = user.tokensValidAfter?.epochSeconds
        if !user.enrollments.isEmpty {
            record["multi_factor"] = ["enrolled_factors": user.enrollments.map { enrollment -> [String: Any] in
                var factor: [String: Any] = ["uid": enrollment.id, "factor_id": enrollment.phoneNumber == nil ? "totp" : "phone",
                                             "enrollment_time": ISO8601DateFormatter().string(from: enrollment.enrolledAt)]
                factor["display_name"] = enrollment.displayName
                factor["phone_number"] = enrollment.phoneNumber
                return factor
            }]
        }
        return record
    }
}

/// A blocking function's answer: the account fields its `updateMask` names, and (from `beforeSignIn`) claims for
/// the session. Checked as Identity Platform checks it: custom and session claims are JSON objects of at most
/// 1,000 characters without reserved names.
public struct BlockingFunctionReply: Sendable, Equatable {
    public var displayName: String??
    public var photoURL: String??
    public var disabled: Bool?
    public var emailVerified: Bool?
    /// JSON objects.
    public var customClaims: String?
    public var sessionClaims: String?
    /// `recaptchaActionOverride` (`ALLOW` or `BLOCK`), read from an email or SMS event's answer.
    public var recaptchaAction: String?

    /// Reads a 2xx body; a body that is not Firebase's shape is `BLOCKING_FUNCTION_ERROR_RESPONSE`.
    public init(body: Data, event: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw AuthFailure.blockingFunctionError("((Response body is not valid JSON.))")
        }
        if let action = object["recaptchaActionOverride"], !(action is NSNull) {
            guard let action = action as? String, ["ALLOW", "BLOCK"].contains(action) else {
                throw AuthFailure.blockingFunctionError("((Response has an invalid recaptchaActionOverride.))")
            }
            recaptchaAction = action
        }
        guard event == "beforeCreate" || event == "beforeSignIn" else { return }  // an email's or SMS's: no account
        guard let record = object["userRecord"] as? [String: Any] else { return }
        guard let mask = record["updateMask"] as? String else {
            throw AuthFailure.blockingFunctionError("((Response UserRecord is missing updateMask.))")
        }
        for field in mask.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch field {
            case "displayName": displayName = .some(record[field] as? String)
            case "photoURL", "photoUrl": photoURL = .some((record["photoURL"] ?? record["photoUrl"]) as? String)
            case "disabled": disabled = record[field] as? Bool ?? false
            case "emailVerified": emailVerified = record[field] as? Bool ?? false
            case "customClaims": customClaims = try Self.claims(record[field], named: "customClaims")
            case "sessionClaims" where event == "beforeSignIn":
                sessionClaims = try Self.claims(record[field], named: "sessionClaims")
            default: continue  // fields Identity Platform ignores
            }
        }
        if let custom = customClaims, let session = sessionClaims,
           ClaimsJSON.merge(session, over: custom).count > AccountPipelineLimits.claimsLength {
            throw AuthFailure.blockingFunctionError("((customClaims and sessionClaims exceed 1000 characters combined.))")
        }
    }

    static func claims(_ value: Any?, named name: String) throws -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any],
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw AuthFailure.blockingFunctionError("((Response has malformed \(name).))")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.count > AccountPipelineLimits.claimsLength {
            throw AuthFailure.blockingFunctionError("((\(name) exceed \(AccountPipelineLimits.claimsLength) characters.))")
        }
        if let reserved = object.keys.first(where: IDTokenIssuer.reservedClaims.contains) {
            throw AuthFailure.blockingFunctionError("((\(name) uses the reserved claim \(reserved).))")
        }
        return text
    }

    /// Writes the fields into `user`; returns the session claims.
    public func apply(to user: inout UserRecord) -> String? {
        if let displayName { user.displayName = displayName }
        if let photoURL { user.photoURL = photoURL }
        if let disabled { user.disabled = disabled }
        if let emailVerified { user.emailVerified = emailVerified }
        if let customClaims { user.customAttributes = customClaims }
        return sessionClaims
    }
}

/// Limits Identity Platform puts on what blocking functions return.
public enum AccountPipelineLimits {
    /// Custom claims, session claims, and both together: at most this many characters of JSON.
    public static let claimsLength = 1000
}

/// Claims as JSON object text.
enum ClaimsJSON {
    /// The object the text holds, or nil (none, or not an object).
    static func object(_ text: String?) -> [String: Any]? {
        text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Two objects merged, `new`'s names winning on a clash.
    static func merge(_ new: String, over old: String?) -> String {
        let merged = (object(old) ?? [:]).merging(object(new) ?? [:]) { _, newer in newer }
        guard let data = try? JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys]) else { return new }
        return String(decoding: data, as: UTF8.self)
    }
}

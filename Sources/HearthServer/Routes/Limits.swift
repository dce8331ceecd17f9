import HearthCore

/// The abuse limits of the route table, applied by the handlers that know the keys (email, address).
extension Call {
    /// Throws `TOO_MANY_ATTEMPTS_TRY_LATER` if any of `keys` is over its rule. No-op when limits are off.
    func enforce(_ keys: [(key: String, rule: RateLimiter.Rule)], else failure: AuthFailure = .tooManyAttempts) throws {
        guard configuration.rateLimits.enabled else { return }
        for (key, rule) in keys where !services.limiter.isAllowed(key, rule) {
            services.logger.notice("rate limit reached", metadata: ["limit": .string(key.prefix(while: { $0 != ":" }).description)])
            throw failure
        }
    }

    /// Counts one event under each of `keys`.
    func count(_ keys: [(key: String, rule: RateLimiter.Rule)]) {
        guard configuration.rateLimits.enabled else { return }
        for (key, rule) in keys { services.limiter.record(key, rule) }
    }

    /// Failed sign-ins, per email and per address.
    func failedSignInKeys(email: String?) -> [(key: String, rule: RateLimiter.Rule)] {
        let limits = configuration.rateLimits
        return [("signin-failed-email:" + EmailAddress.normalized(email ?? ""), limits.failedSignInsPerEmail),
                ("signin-failed-address:" + clientAddress, limits.failedSignInsPerAddress)]
    }

    /// Emails sent, per recipient (email, or the ID token for requests that name none) and per address.
    func emailKeys(recipient: String) -> [(key: String, rule: RateLimiter.Rule)] {
        let limits = configuration.rateLimits
        return [("email-recipient:" + EmailAddress.normalized(recipient), limits.emailsPerRecipient),
                ("email-address:" + clientAddress, limits.emailsPerAddress)]
    }

    /// Verification SMS, per number and per address (`QUOTA_EXCEEDED` beyond them).
    func smsKeys(number: String) -> [(key: String, rule: RateLimiter.Rule)] {
        let limits = configuration.rateLimits
        return [("sms-number:" + number, limits.smsPerNumber), ("sms-address:" + clientAddress, limits.smsPerAddress)]
    }

    /// Sends a verification SMS within the limits; a provider failure is logged and answered 503.
    func sendingSMS(to number: String, _ send: () async throws -> String) async throws -> String {
        let keys = smsKeys(number: number)
        try enforce(keys, else: .quotaExceeded)
        do {
            let sessionInfo = try await send()
            count(keys)
            return sessionInfo
        } catch let error as SMSDeliveryFailure {
            services.logger.error("SMS not sent", metadata: ["error": "\(error.reason)",
                "hint": "configure sms.webhook or sms.twilio in the config file (see README: Phone and multi-factor)"])
            throw APIError.smsUnavailable
        }
    }

    /// Accounts created, per address.
    var signUpKeys: [(key: String, rule: RateLimiter.Rule)] {
        [("signup-address:" + clientAddress, configuration.rateLimits.signUpsPerAddress)]
    }
}

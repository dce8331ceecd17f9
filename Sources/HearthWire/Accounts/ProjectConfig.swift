/// `GET /v1/projects` (v3 `getProjectConfig`): what client SDKs read at start-up.
public struct GetProjectConfigResponse: Codable, Sendable, Equatable {
    /// The project *number*.
    public var projectId: String
    public var authorizedDomains: [String]

    public init(projectId: String, authorizedDomains: [String]) {
        self.projectId = projectId
        self.authorizedDomains = authorizedDomains
    }
}

/// A JSON Web Key Set: `{"keys":[{kty, alg, use, kid, n, e}]}`.
public struct JWKSet: Codable, Sendable, Equatable {
    public var keys: [[String: String]]
    public init(keys: [[String: String]]) { self.keys = keys }
}

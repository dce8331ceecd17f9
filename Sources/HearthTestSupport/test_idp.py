"""An identity provider for Hearth's tests, on loopback.

Keys and ID tokens come from authlib (its JWK and JWT implementations); the HTTP side is the standard library's.
It serves an OIDC discovery document and JWKS, a token-minting endpoint for the tests, a Graph-like /graph/me, a
GitHub-like /github/user and /github/user/emails, an OIDC /userinfo, a /slow endpoint that never answers in
time and a /huge one that answers too much, and Game Center's side: a certificate at /gc/public-key/gc.cer and
/gc/sign, which signs as GameKit does (the `cryptography` package, not Hearth's code). Usage: python3 test_idp.py
PORT_FILE
"""
import base64, hashlib, html, json, secrets, sys, time, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs, urlencode
from authlib.jose import JsonWebKey, jwt

try:
    from oauthlib.oauth1 import (RequestValidator, ResourceEndpoint, RequestTokenEndpoint, AuthorizationEndpoint,
                                 AccessTokenEndpoint)
except ImportError:  # the OAuth 1.0a endpoints are then absent; their tests say they are skipped
    RequestValidator = object
    ResourceEndpoint = None

# OAuth 1.0a (Twitter's API v1.1 style): signatures are checked by oauthlib, not by us.
CONSUMER_KEY, CONSUMER_SECRET = "twitter-consumer-key-0001", "twitter-consumer-secret"
oauth1_tokens = {}  # access token -> (secret, profile)
request_tokens = {}  # request token -> {"secret", "callback", "verifier", "user"}
oauth1_next_user = {"profile": {"id_str": "tw-redirect", "name": "Redirect Bird", "screen_name": "redirectbird"}}

class Validator(RequestValidator):
    enforce_ssl = False
    client_key_length = (10, 64)
    access_token_length = (10, 64)
    nonce_length = (8, 64)
    safe_characters = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
    dummy_client = "dummy-client-key-0000"
    dummy_access_token = "dummy-access-token-00"
    seen = set()
    def check_client_key(self, key): return True
    def check_access_token(self, token): return True
    def check_nonce(self, nonce): return True
    def validate_client_key(self, key, request): return key == CONSUMER_KEY
    def get_client_secret(self, key, request): return CONSUMER_SECRET
    def validate_access_token(self, key, token, request): return token in oauth1_tokens
    def get_access_token_secret(self, key, token, request): return oauth1_tokens.get(token, ("dummy-secret", None))[0]
    def validate_realms(self, *args, **kwargs): return True
    # The three-legged flow (request token, authorization, access token).
    request_token_length = (10, 64)
    verifier_length = (10, 64)
    dummy_request_token = "dummy-request-token-0"
    def check_request_token(self, token): return True
    def check_verifier(self, verifier): return True
    def validate_requested_realms(self, key, realms, request): return True
    def get_default_realms(self, key, request): return []
    def get_realms(self, token, request): return []
    def validate_redirect_uri(self, key, uri, request): return uri.startswith("http://127.0.0.1") or uri.startswith("http://localhost")
    def save_request_token(self, token, request):
        request_tokens[token["oauth_token"]] = {"secret": token["oauth_token_secret"], "callback": request.redirect_uri}
    def verify_request_token(self, token, request): return token in request_tokens
    def get_redirect_uri(self, token, request): return request_tokens[token]["callback"]
    def save_verifier(self, token, verifier, request): request_tokens[token]["verifier"] = verifier["oauth_verifier"]
    def validate_request_token(self, key, token, request): return token in request_tokens
    def get_request_token_secret(self, key, token, request): return request_tokens.get(token, {}).get("secret", "dummy-secret")
    def validate_verifier(self, key, token, verifier, request):
        return request_tokens.get(token, {}).get("verifier") == verifier
    def invalidate_request_token(self, key, token, request): request_tokens.pop(token, None)
    def save_access_token(self, token, request):
        oauth1_tokens[token["oauth_token"]] = (token["oauth_token_secret"], oauth1_next_user["profile"])
        token["user_id"] = oauth1_next_user["profile"]["id_str"]
        token["screen_name"] = oauth1_next_user["profile"]["screen_name"]
    def validate_timestamp_and_nonce(self, key, timestamp, nonce, request, request_token=None, access_token=None):
        if (nonce, timestamp) in self.seen:
            return False
        self.seen.add((nonce, timestamp))
        return True

validator = Validator()
resource = ResourceEndpoint(validator) if ResourceEndpoint else None
request_token_endpoint = RequestTokenEndpoint(validator) if ResourceEndpoint else None
authorization_endpoint = AuthorizationEndpoint(validator) if ResourceEndpoint else None
access_token_endpoint = AccessTokenEndpoint(validator) if ResourceEndpoint else None

good = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "good-key"})
forger = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "good-key"})
# Sign in with Apple's token endpoints: the app's key (Hearth gets the private half from /apple/key), the codes the
# tests hand out ("apple-code-..."), and what was revoked with a client secret that checked out.
APPLE_TEAM, APPLE_KEY_ID = "TEAM123456", "APPLEKEY01"
apple_key = JsonWebKey.generate_key("EC", "P-256", is_private=True)
apple_used_codes, apple_revoked = set(), []
profiles = {}   # access token -> profile (set by the tests through /profiles)
codes = {}      # authorization code -> what it was issued for
CLIENT_SECRET = "idp-secret"

# Game Center: an RSA key and its self-signed certificate, as Apple publishes one at static.gc.apple.com.
def game_center_key():
    import datetime
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gc-test.apple.example")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    return key, cert.public_bytes(serialization.Encoding.DER)

gc_key, gc_cert = game_center_key()

def game_center_sign(player, bundle, timestamp, salt):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    payload = player.encode() + bundle.encode() + int(timestamp).to_bytes(8, "big") + salt
    return gc_key.sign(payload, padding.PKCS1v15(), hashes.SHA256())

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def base(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def bearer(self):
        header = self.headers.get("Authorization", "")
        return header[7:] if header.startswith("Bearer ") else None

    def do_GET(self):
        path = urlparse(self.path).path
        if path == "/gc/public-key/gc.cer":
            self.send_response(200)
            self.send_header("Content-Type", "application/pkix-cert")
            self.send_header("Content-Length", str(len(gc_cert)))
            self.end_headers()
            self.wfile.write(gc_cert)
            return
        if path == "/apple/key":
            return self.reply(200, {"teamId": APPLE_TEAM, "keyId": APPLE_KEY_ID,
                                    "privateKey": apple_key.as_pem(is_private=True).decode()})
        if path == "/apple/revoked":
            return self.reply(200, {"revoked": apple_revoked})
        if path == "/authorize":
            # Signs in, without asking, the user named by login_hint (a custom parameter), and sends the browser
            # back with a code bound to the client, the redirect URI, the PKCE challenge and the nonce.
            query = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
            if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256":
                return self.reply(400, {"error": "unsupported_response_type"})
            sub = query.get("login_hint", "redirect-user")
            code = secrets.token_urlsafe(24)
            codes[code] = {"client_id": query.get("client_id"), "redirect_uri": query.get("redirect_uri"),
                           "challenge": query.get("code_challenge"), "nonce": query.get("nonce"), "sub": sub,
                           "scope": query.get("scope", ""), "lang": query.get("lang")}
            location = query["redirect_uri"] + ("&" if "?" in query["redirect_uri"] else "?") + urlencode(
                {"code": code, "state": query.get("state", "")})
            if "application/json" in self.headers.get("Accept", ""):
                return self.reply(200, {"location": location})
            if query.get("response_mode") == "form_post":
                # As Apple does: a page that posts the answer (and, asked for the name, the user's name) back.
                fields = {"code": code, "state": query.get("state", "")}
                if "name" in query.get("scope", "").split(" "):
                    fields["user"] = json.dumps({"name": {"firstName": "Form", "lastName": "Poster"}})
                inputs = "".join('<input type="hidden" name="%s" value="%s">' % (k, html.escape(v, quote=True))
                                 for k, v in fields.items())
                page = ('<!DOCTYPE html><html><body onload="document.forms[0].submit()"><form method="post" action="%s">'
                        '%s</form></body></html>' % (html.escape(query["redirect_uri"], quote=True), inputs)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
                return
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/.well-known/openid-configuration":
            base = self.base()
            return self.reply(200, {"issuer": base, "jwks_uri": base + "/jwks", "userinfo_endpoint": base + "/userinfo",
                                    "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token"})
        if path == "/jwks":
            return self.reply(200, {"keys": [good.as_dict(is_private=False, kid="good-key", alg="RS256", use="sig")]},
                              {"Cache-Control": "public, max-age=3600"})
        if path == "/slow":
            time.sleep(30)
            return self.reply(200, {})
        if path == "/huge":
            # A JWKS answer of 2 MiB: more than Hearth reads from a provider.
            return self.reply(200, {"keys": [], "padding": "x" * (2 << 20)})
        if path == "/oauth/authenticate" and authorization_endpoint is not None:
            # The user approves at once; the browser goes back to the app's callback with a verifier.
            headers, body, status = authorization_endpoint.create_authorization_response(self.base() + self.path)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/1.1/account/verify_credentials.json" and resource is not None:
            uri = self.base() + self.path
            valid, request = resource.validate_protected_resource_request(
                uri, http_method="GET", headers={"Authorization": self.headers.get("Authorization", "")})
            if not valid:
                return self.reply(401, {"errors": [{"code": 32, "message": "Could not authenticate you."}]})
            return self.reply(200, oauth1_tokens[request.resource_owner_key][1])
        profile = profiles.get(self.bearer() or "")
        if path in ("/graph/me", "/github/user", "/userinfo", "/x/users/me"):
            if profile is None:
                return self.reply(401, {"error": "invalid_token"})
            return self.reply(200, profile["profile"])
        if path == "/github/user/emails":
            if profile is None:
                return self.reply(401, {"error": "invalid_token"})
            return self.reply(200, profile.get("emails", []))
        return self.reply(404, {"error": "not found"})

    def issue(self, form, grant):
        """Answers a code exchange for `grant`: the redirect URI and PKCE must match; an ID token for its user."""
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return self.reply(400, {"error": "invalid_grant", "error_description": "redirect_uri"})
        verifier = form.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if challenge != grant["challenge"]:
            return self.reply(400, {"error": "invalid_grant", "error_description": "PKCE"})
        now = int(time.time())
        claims = {"iss": self.base(), "aud": grant["client_id"], "sub": grant["sub"], "iat": now, "exp": now + 600,
                  "nonce": grant["nonce"], "email": grant["sub"] + "@idp.example", "email_verified": True,
                  "name": "Redirect " + grant["sub"], "locale": grant["lang"] or "en"}
        token = jwt.encode({"alg": "RS256", "kid": "good-key"}, claims, good).decode()
        access = "at-" + secrets.token_urlsafe(16)
        profiles[access] = {"profile": {"sub": grant["sub"]}, "emails": []}
        return self.reply(200, {"access_token": access, "id_token": token, "token_type": "Bearer",
                                "expires_in": 3600, "refresh_token": "rt-" + secrets.token_urlsafe(8)})

    def apple_client(self, form):
        """The client id if its client_secret is Apple's kind of JWT signed with the app's key, else None."""
        try:
            claims = jwt.decode(form.get("client_secret", ""), apple_key)
            claims.validate(now=int(time.time()))
        except Exception:
            return None
        ok = (claims.header.get("alg") == "ES256" and claims.header.get("kid") == APPLE_KEY_ID
              and claims.get("iss") == APPLE_TEAM and claims.get("aud") == "https://appleid.apple.com"
              and claims.get("sub") == form.get("client_id") and 0 < claims["exp"] - claims["iat"] <= 15777000)
        return form.get("client_id") if ok else None

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        path = urlparse(self.path).path
        if path in ("/apple/token", "/apple/revoke"):
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            client = self.apple_client(form)
            if client is None:
                return self.reply(401, {"error": "invalid_client"})
            if path == "/apple/token":
                code = form.get("code", "")
                grant = codes.pop(code, None)
                if grant is not None and form.get("grant_type") == "authorization_code" \
                        and form.get("client_id") == grant["client_id"]:
                    return self.issue(form, grant)  # the redirect flow, with Apple's kind of client secret
                if form.get("grant_type") != "authorization_code" or not code.startswith("apple-code-") \
                        or code in apple_used_codes:
                    return self.reply(400, {"error": "invalid_grant"})
                apple_used_codes.add(code)
                return self.reply(200, {"access_token": "at-" + code, "refresh_token": "rt-" + code,
                                        "token_type": "Bearer", "expires_in": 3600})
            apple_revoked.append({"token": form.get("token"), "hint": form.get("token_type_hint"), "client": client})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/token":
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            grant = codes.pop(form.get("code", ""), None)
            if grant is None or form.get("grant_type") != "authorization_code":
                return self.reply(400, {"error": "invalid_grant"})
            if form.get("client_id") != grant["client_id"] or form.get("client_secret") != CLIENT_SECRET:
                return self.reply(401, {"error": "invalid_client"})
            return self.issue(form, grant)
        if path in ("/oauth/request_token", "/oauth/access_token") and request_token_endpoint is not None:
            endpoint = request_token_endpoint if path == "/oauth/request_token" else access_token_endpoint
            create = endpoint.create_request_token_response if path == "/oauth/request_token" else endpoint.create_access_token_response
            headers, body, status = create(self.base() + self.path, http_method="POST", body=raw.decode(),
                                           headers={"Authorization": self.headers.get("Authorization", ""),
                                                    "Content-Type": self.headers.get("Content-Type", "")})
            data = (body or "").encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-www-form-urlencoded")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        body = json.loads(raw or b"{}")
        if path == "/mint":
            claims = body["claims"]
            claims.setdefault("iss", self.base())
            key = forger if body.get("forged") else good
            header = {"alg": body.get("alg", "RS256"), "kid": "good-key"}
            token = jwt.encode(header, claims, key).decode()
            return self.reply(200, {"id_token": token})
        if path == "/gc/sign":
            salt = secrets.token_bytes(32)
            timestamp = body.get("timestamp", int(time.time() * 1000))
            signature = game_center_sign(body["player"], body["bundle"], timestamp, salt)
            return self.reply(200, {"publicKeyUrl": self.base() + "/gc/public-key/gc.cer", "timestamp": timestamp,
                                    "signature": base64.b64encode(signature).decode(),
                                    "salt": base64.b64encode(salt).decode()})
        if path == "/oauth1-next-user":
            oauth1_next_user["profile"] = json.loads(raw)["profile"]
            return self.reply(200, {})
        if path == "/oauth1-tokens":
            oauth1_tokens[body["token"]] = (body["secret"], body["profile"])
            return self.reply(200, {})
        if path == "/profiles":
            profiles[body["token"]] = {"profile": body["profile"], "emails": body.get("emails", [])}
            return self.reply(200, {})
        return self.reply(404, {"error": "not found"})

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()

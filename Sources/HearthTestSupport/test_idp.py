"""An identity provider for Hearth's tests, on loopback.

Keys and ID tokens come from authlib (its JWK and JWT implementations); the HTTP side is the standard library's.
It serves an OIDC discovery document and JWKS, a token-minting endpoint for the tests, a Graph-like /graph/me, a
GitHub-like /github/user and /github/user/emails, an OIDC /userinfo, and a /slow endpoint that never answers in
time. Usage: python3 test_idp.py PORT_FILE
"""
import json, sys, time, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse
from authlib.jose import JsonWebKey, jwt

good = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "good-key"})
forger = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "good-key"})
profiles = {}   # access token -> profile (set by the tests through /profiles)

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

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        path = urlparse(self.path).path
        if path == "/mint":
            claims = body["claims"]
            claims.setdefault("iss", self.base())
            key = forger if body.get("forged") else good
            header = {"alg": body.get("alg", "RS256"), "kid": "good-key"}
            token = jwt.encode(header, claims, key).decode()
            return self.reply(200, {"id_token": token})
        if path == "/profiles":
            profiles[body["token"]] = {"profile": body["profile"], "emails": body.get("emails", [])}
            return self.reply(200, {})
        return self.reply(404, {"error": "not found"})

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()

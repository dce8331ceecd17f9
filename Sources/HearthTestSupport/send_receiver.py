"""Receives Hearth's beforeSendEmail and beforeSendSms calls and checks them as firebase-functions' identity.ts does.

Those two events are Node-only in Firebase's SDKs, so this stands in for a Node app's handler: it reads
`{"data": {"jwt": …}}`, verifies the JWT as firebase-admin's `_verifyAuthBlockingToken` does (RS256 with a `kid`,
signed by a key from Hearth's x509 endpoint, issuer `https://securetoken.google.com/<project>`, an audience naming
`run.app`, within `iat`/`exp`, and no `sub` needed for these events), then answers as `generateResponsePayload`
writes it. Emulator mode (FIREBASE_AUTH_EMULATOR_HOST set) skips the signature, as the SDK does.

    python3 send_receiver.py before_send_email 8083 /tmp/seen.jsonl
Each verified payload is appended to the log file as one JSON line, for the test to read.
"""
import base64
import json
import os
import sys

import google.auth.transport.requests
from flask import Flask, jsonify, request
from google.oauth2 import id_token

PROJECT = os.environ["GOOGLE_CLOUD_PROJECT"]
KEYS = os.environ.get("HEARTH_KEYS_URL", "")
EMULATED = bool(os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"))


def unsafe_decode(jwt):
    part = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def verify(jwt):
    if EMULATED:
        return unsafe_decode(jwt)
    header = json.loads(base64.urlsafe_b64decode(jwt.split(".")[0] + "=="))
    if header.get("alg") != "RS256" or not header.get("kid"):
        raise ValueError(f"bad header {header}")
    claims = id_token.verify_token(jwt, google.auth.transport.requests.Request(), audience=None, certs_url=KEYS)
    if claims.get("iss") != f"https://securetoken.google.com/{PROJECT}":
        raise ValueError(f"bad issuer {claims.get('iss')}")
    if "run.app" not in (claims.get("aud") or ""):
        raise ValueError(f"bad audience {claims.get('aud')}")
    return claims


def error(status, code, message):
    return jsonify(error={"status": code, "message": message}), status


def make_app(target, log):
    app = Flask(target)

    @app.post("/run.app/<name>")
    def handle(name):
        body = request.get_json(silent=True) or {}
        jwt = (body.get("data") or {}).get("jwt")
        if not isinstance(jwt, str):
            return error(400, "INVALID_ARGUMENT", "Bad Request")
        try:
            claims = verify(jwt)
        except Exception as failure:  # the SDK answers a bad token with 401 as well
            return error(401, "UNAUTHENTICATED", f"invalid token: {failure}")
        expected = "beforeSendEmail" if target == "before_send_email" else "beforeSendSms"
        if claims.get("event_type") != expected:
            return error(400, "INVALID_ARGUMENT", f"unexpected event {claims.get('event_type')}")
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps(claims) + "\n")
        address = claims.get("email") or claims.get("phone_number") or ""
        if address.endswith("@blocked.example") or address.endswith("0666"):
            return jsonify(recaptchaActionOverride="BLOCK")
        if address.endswith("@refused.example"):
            return error(400, "INVALID_ARGUMENT", f"No mail for {address}")
        return jsonify({})

    return app


if __name__ == "__main__":
    make_app(sys.argv[1], sys.argv[3]).run("127.0.0.1", int(sys.argv[2]), threaded=True)

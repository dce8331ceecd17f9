"""A software passkey authenticator and client for the tests, built on the fido2 package's WebAuthn structures and
the cryptography package's keys: it makes genuine registrations and assertions for the options Hearth answers.

  python3 passkey_authenticator.py create STATE REQUEST OUT
  python3 passkey_authenticator.py get STATE REQUEST OUT

STATE keeps the credentials made (their private keys and counters) between calls. REQUEST is a JSON object:
{"options": <Hearth's start response>, "origin": "...", and optionally "alg" (es256, eddsa, rs256), "attestation"
(none, packed), "userVerified" (default true), "userPresent" (default true), "rpId" (instead of the options'),
"credentialId" (which credential answers), "signWith" (another credential's key signs), "counter" (instead of the next), "userHandle" (instead of the real one),
"challenge" (instead of the options')}. OUT receives the PublicKeyCredential JSON, byte fields base64url.
"""
import base64
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2.cose import ES256, EdDSA, RS256
from fido2.utils import websafe_encode
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticatorData,
                            CollectedClientData)

FLAG = AuthenticatorData.FLAG


def any_b64(text):
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def make_key(alg):
    if alg == "es256":
        key = ec.generate_private_key(ec.SECP256R1())
        return key, ES256.from_cryptography_key(key.public_key())
    if alg == "eddsa":
        key = ed25519.Ed25519PrivateKey.generate()
        return key, EdDSA.from_cryptography_key(key.public_key())
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key, RS256.from_cryptography_key(key.public_key())


def sign(key, alg, data):
    if alg == "es256":
        return key.sign(data, ec.ECDSA(hashes.SHA256()))
    if alg == "eddsa":
        return key.sign(data)
    return key.sign(data, padding.PKCS1v15(), hashes.SHA256())


def flags(request, extra=0):
    value = extra
    if request.get("userPresent", True):
        value |= FLAG.UP
    if request.get("userVerified", True):
        value |= FLAG.UV
    return FLAG(value)


def create(state, request):
    options = request["options"]["credentialCreationOptions"]
    rp_id = request.get("rpId", options["rp"]["id"])
    challenge = any_b64(request.get("challenge", options["challenge"]))
    alg = request.get("alg", "es256")
    key, cose = make_key(alg)
    credential_id = os.urandom(32)
    data = AuthenticatorData.create(hashlib.sha256(rp_id.encode()).digest(), flags(request, FLAG.AT), 0,
                                    AttestedCredentialData.create(b"\x00" * 16, credential_id, cose))
    client = CollectedClientData.create("webauthn.create", challenge, request["origin"])
    if request.get("attestation", "none") == "packed":
        signature = sign(key, alg, bytes(data) + hashlib.sha256(bytes(client)).digest())
        attestation = AttestationObject.create("packed", data, {"alg": cose.ALGORITHM, "sig": signature})
    else:
        attestation = AttestationObject.create("none", data, {})
    encoded_id = websafe_encode(credential_id)
    state["credentials"][encoded_id] = {
        "alg": alg, "counter": 0, "user": options["user"]["id"],
        "key": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode(),
    }
    state["last"] = encoded_id
    return {"id": encoded_id, "rawId": encoded_id, "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(bytes(client)),
                         "attestationObject": websafe_encode(bytes(attestation))}}


def get(state, request):
    options = request["options"]["credentialRequestOptions"]
    rp_id = request.get("rpId", options["rpId"])
    challenge = any_b64(request.get("challenge", options["challenge"]))
    encoded_id = request.get("credentialId", state.get("last"))
    credential = state["credentials"][encoded_id]
    counter = request.get("counter", credential["counter"] + 1)
    credential["counter"] = max(counter, credential["counter"])
    signer = state["credentials"][request.get("signWith", encoded_id)]
    key = serialization.load_pem_private_key(signer["key"].encode(), password=None)
    data = AuthenticatorData.create(hashlib.sha256(rp_id.encode()).digest(), flags(request), counter)
    client = CollectedClientData.create("webauthn.get", challenge, request["origin"])
    signature = sign(key, signer["alg"], bytes(data) + hashlib.sha256(bytes(client)).digest())
    handle = request.get("userHandle", websafe_encode(any_b64(credential["user"])))
    return {"id": encoded_id, "rawId": encoded_id, "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(bytes(client)), "authenticatorData": websafe_encode(bytes(data)),
                         "signature": websafe_encode(signature), "userHandle": handle}}


def main():
    command, state_path, request_path, out_path = sys.argv[1:5]
    state = {"credentials": {}}
    if os.path.exists(state_path):
        with open(state_path) as handle:
            state = json.load(handle)
    with open(request_path) as handle:
        request = json.load(handle)
    answer = create(state, request) if command == "create" else get(state, request)
    with open(state_path, "w") as handle:
        json.dump(state, handle)
    with open(out_path, "w") as handle:
        json.dump(answer, handle)


if __name__ == "__main__":
    main()

"""An app's blocking functions, written with the unmodified firebase-functions SDK, for Hearth's tests.

Served by functions-framework, one target per process, on Flask's own server (functions-framework's CLI forks
gunicorn workers, which a stopped test would leave serving):
    python3 blocking_functions.py before_create 8081
Production mode: the SDK verifies Hearth's signature with the keys Hearth publishes (the one line below is all an
app adds: firebase-functions otherwise fetches Google's keys). Emulator mode: the SDK skips the check when
FIREBASE_AUTH_EMULATOR_HOST is set, as it does against Firebase's emulator.
"""
import os

from firebase_admin import _token_gen
from firebase_functions import https_fn, identity_fn

# Hearth's keys instead of Google's: <Hearth's URL>/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com
_token_gen.ID_TOKEN_CERT_URI = os.environ.get("HEARTH_KEYS_URL", _token_gen.ID_TOKEN_CERT_URI)


@identity_fn.before_user_created()
def before_create(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    email = event.data.email or ""
    if email.endswith("@blocked.example"):
        raise https_fn.HttpsError(code=https_fn.FunctionsErrorCode.PERMISSION_DENIED,
                                  message=f"Unauthorized email {email}")
    return identity_fn.BeforeCreateResponse(
        display_name="Named by the hook",
        custom_claims={"plan": "free", "created_by": event.additional_user_info.provider_id,
                       "from_ip": event.ip_address, "tenant": event.data.tenant_id or ""})


@identity_fn.before_user_signed_in()
def before_sign_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    if (event.data.email or "").startswith("disable-me"):
        return identity_fn.BeforeSignInResponse(disabled=True)
    return identity_fn.BeforeSignInResponse(
        session_claims={"session_method": event.additional_user_info.provider_id,
                        "session_agent": event.user_agent})


if __name__ == "__main__":
    import sys

    from functions_framework import create_app

    create_app(sys.argv[1], __file__).run("127.0.0.1", int(sys.argv[2]), threaded=True)

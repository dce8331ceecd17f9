"""An app's webhook receiver for Hearth's account events, verifying each with the `standardwebhooks` package.

    python3 webhook_receiver.py PORT SECRET LOG
Each verified event is appended to LOG as one JSON line, with its webhook-id; one that fails verification gets 400
and is not logged (Hearth then retries it, and the test sees it never arrive).
"""
import json
import sys

from flask import Flask, request
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

port, secret, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
app = Flask("receiver")
verifier = Webhook(secret)


@app.post("/hook")
def hook():
    body = request.get_data()
    try:
        payload = verifier.verify(body, dict(request.headers))
    except WebhookVerificationError as failure:
        return {"error": str(failure)}, 400
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps({"id": request.headers["webhook-id"], "event": payload}) + "\n")
    return "", 204


if __name__ == "__main__":
    app.run("127.0.0.1", port, threaded=True)

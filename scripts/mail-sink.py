#!/usr/bin/env python3
"""A local SMTP sink for development: accepts every email and prints it readably (sender, recipients, subject and
the plain-text body, decoded, so links can be clicked or copied). Nothing is delivered anywhere.

    python3 scripts/mail-sink.py                 # listens on 127.0.0.1:2525 (pip install aiosmtpd)
    python3 scripts/mail-sink.py --port 1025
    HEARTH_SMTP_URL='smtp://127.0.0.1:2525?security=none' swift run hearth serve    # in another terminal

See docs/sign-in-methods.md#email-in-development.
"""
import argparse
import email
import email.policy
import sys
import time

try:
    from aiosmtpd.controller import Controller
except ImportError:
    sys.exit("mail-sink needs aiosmtpd: pip install aiosmtpd (bash scripts/test installs it too)")


class Printer:
    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain", "html"))
        text = body.get_content() if body is not None else message.get_content()
        print("=" * 72)
        print(f"From:    {message['From']}")
        print(f"To:      {', '.join(envelope.rcpt_tos)}")
        print(f"Subject: {message['Subject']}")
        print()
        print(text.rstrip())
        print(flush=True)
        return "250 OK"


def main():
    parser = argparse.ArgumentParser(description="Print every email sent to this SMTP server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2525)
    arguments = parser.parse_args()
    controller = Controller(Printer(), hostname=arguments.host, port=arguments.port)
    controller.start()
    print(f"mail sink on {arguments.host}:{arguments.port}: emails sent here are printed, not delivered "
          f"(HEARTH_SMTP_URL='smtp://{arguments.host}:{arguments.port}?security=none'); Ctrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        controller.stop()


if __name__ == "__main__":
    main()

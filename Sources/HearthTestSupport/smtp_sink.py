import asyncio, json, os, socket, ssl, subprocess, sys
from email import policy
from email.parser import BytesParser
from aiosmtpd.smtp import SMTP, AuthResult

config = json.load(open(sys.argv[1]))
directory = config["directory"]
cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-addext", "basicConstraints=critical,CA:TRUE"], check=True, capture_output=True)
context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)
state = {"count": 0, "drops": 0}

class Handler:
    async def handle_DATA(self, server, session, envelope):
        if state["drops"] < config["dropFirst"]:
            state["drops"] += 1
            open(os.path.join(directory, "drop-%d" % state["drops"]), "w").close()
            server.transport.close()
            return "421 dropped"
        if config["reject"]:
            return "%d 5.7.1 rejected by the test sink" % config["reject"]
        message = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        text = message.get_body(("plain",))
        html = message.get_body(("html",))
        raw_subject = ""
        for line in envelope.original_content.decode("ascii", "replace").split("\r\n\r\n")[0].split("\r\n"):
            if line.lower().startswith("subject:") or (raw_subject and line.startswith(" ")):
                raw_subject += line + "\n"
            elif raw_subject:
                break
        state["count"] += 1
        record = {
            "mail_from": envelope.mail_from, "recipients": envelope.rcpt_tos,
            "from": str(message["From"]), "to": str(message["To"]), "subject": str(message["Subject"]),
            "raw_subject": raw_subject, "text": text.get_content() if text else None,
            "html": html.get_content() if html else None, "content_type": message.get_content_type(),
            "message_id": message["Message-ID"], "date": message["Date"],
            "login": session.auth_data.login.decode() if session.auth_data else None,
            "tls": session.ssl is not None or server.transport.get_extra_info("sslcontext") is not None,
        }
        path = os.path.join(directory, "message-%d.json" % state["count"])
        with open(path + ".tmp", "w") as f:
            json.dump(record, f)
        os.rename(path + ".tmp", path)
        return "250 2.0.0 accepted"

def authenticator(server, session, envelope, mechanism, auth_data):
    users = config["users"]
    ok = auth_data.login.decode() in users and users[auth_data.login.decode()] == auth_data.password.decode()
    return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

def factory():
    kwargs = {"hostname": "localhost"}
    if config["users"]:
        # Implicit TLS is invisible to aiosmtpd, which would then hide AUTH: only demand TLS for STARTTLS.
        kwargs.update(authenticator=authenticator, auth_required=True,
                      auth_require_tls=config["security"] == "starttls",
                      auth_exclude_mechanism=config["exclude"])
    if config["security"] == "starttls":
        kwargs.update(tls_context=context, require_starttls=True)
    return SMTP(Handler(), **kwargs)

async def main():
    server = await asyncio.get_running_loop().create_server(
        factory, "127.0.0.1", 0, ssl=context if config["security"] == "tls" else None)
    port = server.sockets[0].getsockname()[1]
    with open(os.path.join(directory, "port.tmp"), "w") as f:
        f.write(str(port))
    os.rename(os.path.join(directory, "port.tmp"), os.path.join(directory, "port"))
    async with server:
        await server.serve_forever()

asyncio.run(main())

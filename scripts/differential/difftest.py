#!/usr/bin/env python3
"""Differential tester: the same generated requests to Firebase's Auth Emulator and to Hearth in emulator mode.

For every operation of the emulator's API spec (its OpenAPI document, dumped to JSON by run.sh), it builds request
variants from the request schema -- empty, the usual fields, every field, each usual field missing, each field of
the wrong type, an unknown field, the fields in reverse order, a malformed body, a garbage token -- and sends each to
both servers with a fresh user of their own (the values that name server state, such as idToken, localId and email,
are each server's). It then compares the HTTP status, the error code (the message before " : "), whether a detail
follows it, and for successes the response's top-level keys and their JSON types.

  difftest.py --spec spec.json --emulator http://127.0.0.1:9099 --hearth http://127.0.0.1:9199 \\
              --project demo-diff --out report        # writes report.json and report.md

Only the standard library; nothing here is needed by CI (the emulator needs ../shared/peer's build).
"""
import argparse
import json
import sys
import urllib.error
import urllib.request

API_KEY = "fake-api-key"
HOSTS = {"identitytoolkit": "/identitytoolkit.googleapis.com", "securetoken": "/securetoken.googleapis.com"}
# Operations that act on the process or have side effects a comparison cannot hold still.
SKIPPED = {"emulator.projects.accounts.delete"}
WRONG = {"string": 12345, "boolean": "not-a-boolean", "integer": "not-a-number", "number": "not-a-number",
         "array": "not-an-array", "object": "not-an-object"}


class Server:
    def __init__(self, name, base, project):
        self.name, self.base, self.project = name, base.rstrip("/"), project
        self.counter = 0

    def send(self, method, path, body=None, raw=None, auth=False, query=None):
        query = dict(query or {})
        if not auth:
            query.setdefault("key", API_KEY)
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = raw.encode() if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = {"Content-Type": "application/json"}
        if auth:
            headers["Authorization"] = "Bearer owner"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, parse(response.read())
        except urllib.error.HTTPError as error:
            return error.code, parse(error.read())
        except Exception as error:  # a reset or a timeout is a difference too
            return 0, {"transport": str(error)}

    def fresh_user(self):
        """A new email-and-password user; the values requests may name."""
        self.counter += 1
        email = f"diff{self.counter}@example.com"
        _, signed = self.send("POST", HOSTS["identitytoolkit"] + "/v1/accounts:signUp",
                              {"email": email, "password": "difftest-1", "returnSecureToken": True})
        return {"idToken": signed.get("idToken", ""), "refreshToken": signed.get("refreshToken", ""),
                "refresh_token": signed.get("refreshToken", ""), "localId": signed.get("localId", ""),
                "email": email, "password": "difftest-1", "targetProjectId": self.project}


def parse(data):
    try:
        return json.loads(data) if data else {}
    except ValueError:
        return {"unparsed": data[:200].decode(errors="replace")}


def resolve(spec, schema, depth=0):
    if not isinstance(schema, dict) or depth > 6:
        return {}
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return resolve(spec, spec["components"]["schemas"].get(name, {}), depth + 1)
    return schema


def sample(spec, schema, depth=0):
    schema = resolve(spec, schema, depth)
    kind = schema.get("type", "object")
    if "enum" in schema:
        return schema["enum"][-1]
    if kind == "string":
        return "value"
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 1
    if kind == "array":
        return []
    return {}


# Fields whose value names state of the server (filled from its fresh user) and the ones a caller usually sends.
STATEFUL = ("idToken", "refreshToken", "refresh_token", "localId", "email", "password", "targetProjectId")


def variants(spec, operation):
    content = ((operation.get("requestBody") or {}).get("content") or {}).get("application/json") or {}
    properties = resolve(spec, content.get("schema", {})).get("properties", {})
    usual = [name for name in properties if name in STATEFUL]
    out = [("empty", {}, None)]
    if not properties:
        return out, properties
    out.append(("usual", {name: "@" + name for name in usual}, None))
    full = {name: ("@" + name if name in STATEFUL else sample(spec, schema)) for name, schema in properties.items()}
    out.append(("every field", full, None))
    for name in usual:
        out.append((f"missing {name}", {n: "@" + n for n in usual if n != name}, None))
    for name, schema in properties.items():
        kind = resolve(spec, schema).get("type", "object")
        body = {n: "@" + n for n in usual}
        body[name] = WRONG.get(kind, "not-an-object")
        out.append((f"{name} of the wrong type", body, None))
    out.append(("an unknown field", dict({n: "@" + n for n in usual}, unknownFieldForDiff=1), None))
    out.append(("fields in reverse order", dict(reversed(list(full.items()))), None))
    out.append(("malformed JSON", None, "{not json"))
    if "idToken" in properties:
        out.append(("a garbage idToken", dict({n: "@" + n for n in usual}, idToken="garbage.token.here"), None))
    return out, properties


def fill(body, user):
    if body is None:
        return None
    return {key: (user.get(value[1:], "") if isinstance(value, str) and value.startswith("@") else value)
            for key, value in body.items()}


def code_of(reply):
    error = reply.get("error") if isinstance(reply, dict) else None
    if not isinstance(error, dict):
        return None, False
    message = str(error.get("message", ""))
    if message.startswith("Invalid JSON payload received."):
        return "Invalid JSON payload received.", False  # the parser's own words follow; they are not compared
    code = message.split(" : ")[0].split(":")[0].strip()
    return code, " : " in message or (":" in message and not message.startswith("Invalid JSON"))


def summary(reply):
    status, body = reply
    error = body.get("error") if isinstance(body, dict) else None
    return f"{status} {error.get('message', '')}" if isinstance(error, dict) else f"{status}"


def shape(reply):
    def kind(value):
        return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number",
                type(None): "null"}[type(value)]
    return {key: kind(value) for key, value in reply.items()} if isinstance(reply, dict) else {}


def compare(a, b):
    (status_a, reply_a), (status_b, reply_b) = a, b
    found = []
    if status_a != status_b:
        found.append(("status", f"{status_a} vs {status_b}"))
    code_a, detail_a = code_of(reply_a)
    code_b, detail_b = code_of(reply_b)
    if code_a != code_b:
        found.append(("error code", f"{code_a} vs {code_b}"))
    elif code_a and detail_a != detail_b:
        found.append(("message detail", f"{'detail' if detail_a else 'none'} vs {'detail' if detail_b else 'none'}"))
    if status_a == status_b == 200:
        shape_a, shape_b = shape(reply_a), shape(reply_b)
        only_a, only_b = sorted(set(shape_a) - set(shape_b)), sorted(set(shape_b) - set(shape_a))
        if only_a:
            found.append(("keys only in the emulator", ", ".join(only_a)))
        if only_b:
            found.append(("keys only in Hearth", ", ".join(only_b)))
        types = [k for k in set(shape_a) & set(shape_b) if shape_a[k] != shape_b[k]]
        if types:
            found.append(("value types", ", ".join(f"{k}: {shape_a[k]} vs {shape_b[k]}" for k in sorted(types))))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--hearth", required=True)
    parser.add_argument("--project", default="demo-diff")
    parser.add_argument("--tenant", default="diff-tenant")
    parser.add_argument("--out", default="differential-report")
    args = parser.parse_args()
    spec = json.load(open(args.spec))
    servers = [Server("emulator", args.emulator, args.project), Server("hearth", args.hearth, args.project)]

    results, not_served, sent = [], [], 0
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            op_id = operation["operationId"]
            if op_id in SKIPPED:
                continue
            host = HOSTS["securetoken"] if op_id.startswith("securetoken") else (
                "" if path.startswith("/emulator") else HOSTS["identitytoolkit"])
            admin = "{targetProjectId}" in path and not path.startswith("/emulator")
            concrete = (host + path).replace("{targetProjectId}", args.project).replace("{tenantId}", args.tenant)
            for name in ("defaultSupportedIdpConfigsId", "inboundSamlConfigsId", "oauthIdpConfigsId"):
                concrete = concrete.replace("{" + name + "}", {"defaultSupportedIdpConfigsId": "google.com",
                                                               "inboundSamlConfigsId": "saml.diff",
                                                               "oauthIdpConfigsId": "oidc.diff"}[name])
            # Not served by Hearth: a 404 to the plainest request, where the emulator answers something else.
            probe = [s.send(method.upper(), concrete, {} if method != "get" else None, auth=admin) for s in servers]
            if probe[1][0] == 404 and probe[0][0] != 404 and code_of(probe[1][1])[0] in (None, "Not Found", "NOT_FOUND"):
                not_served.append(f"{method.upper()} {path}")
                continue
            cases, _ = variants(spec, operation)
            for label, body, raw in cases:
                if method == "get" and (body or raw):
                    continue
                replies = []
                for server in servers:
                    user = server.fresh_user()
                    replies.append(server.send(method.upper(), concrete, fill(body, user) if method != "get" else None,
                                               raw=raw, auth=admin))
                sent += 1
                found = compare(*replies)
                if not found:
                    continue
                # The emulator answers 501 where it has no implementation; Hearth serving those is expected.
                kind = "the emulator does not implement it" if replies[0][0] == 501 else found[0][0]
                results.append({"operation": op_id, "method": method.upper(), "path": path, "case": label,
                                "kind": kind, "detail": "; ".join(f"{k}: {d}" for k, d in found),
                                "emulator": summary(replies[0]), "hearth": summary(replies[1])})
    report = {"requests": sent, "differences": len(results), "notServedByHearth": not_served, "results": results}
    json.dump(report, open(args.out + ".json", "w"), indent=1)
    with open(args.out + ".md", "w") as md:
        md.write(f"# Differential run: {sent} request pairs, {len(results)} that differ\n\n")
        md.write("Not served by Hearth: " + (", ".join(not_served) or "none") + "\n\n")
        by_kind = {}
        for r in results:
            by_kind.setdefault(r["kind"], 0)
            by_kind[r["kind"]] += 1
        md.write("| kind | count |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in sorted(by_kind.items())) + "\n")
        md.write("| operation | case | kind | emulator | Hearth |\n|---|---|---|---|---|\n")
        for r in results:
            md.write(f"| {r['method']} {r['path']} | {r['case']} | {r['detail']} | "
                     f"{str(r['emulator'])[:90]} | {str(r['hearth'])[:90]} |\n")
    real = sum(1 for r in results if r["kind"] != "the emulator does not implement it")
    print(f"{sent} request pairs, {len(results)} that differ ({real} where the emulator implements the call); "
          f"not served by Hearth: {len(not_served)}")
    print(f"report: {args.out}.md, {args.out}.json")


if __name__ == "__main__":
    import urllib.parse  # noqa: E402 (kept beside its only use)
    sys.exit(main())

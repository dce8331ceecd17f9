#!/usr/bin/env python3
"""What a blocking function costs a sign-up: anonymous sign-ups against a running emulator-mode server
(`hearth serve --emulator --project-id bench --port PORT`), alternating rounds without and with beforeCreate and
beforeSignIn pointed at a no-op function on loopback (it answers `{}` in one write, as production servers do).

    python3 scripts/blocking-latency.py PORT [SIGN_UPS_PER_ROUND]

Prints the median sign-up latency of each round and the difference: the two calls' round trips (each with one
RS256 signature) should be all of it.
"""
import http.client, json, statistics, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

calls = [0]
class NoOp(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 65536  # one write per answer, as production servers send it
    def do_POST(self):
        calls[0] += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b"{}"
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass

hook = ThreadingHTTPServer(("127.0.0.1", 0), NoOp)
threading.Thread(target=hook.serve_forever, daemon=True).start()
port = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
conn = http.client.HTTPConnection("127.0.0.1", port)
def call(method, path, body, headers={}):
    conn.request(method, path, json.dumps(body), {"Content-Type": "application/json", **headers})
    r = conn.getresponse(); data = r.read(); return r.status, data
def config(triggers):
    return call("PATCH", "/identitytoolkit.googleapis.com/v2/projects/bench/config?updateMask=blockingFunctions.triggers",
                {"blockingFunctions": {"triggers": triggers}}, {"Authorization": "Bearer owner"})
def run():
    times = []
    for i in range(n):
        t = time.perf_counter(); s, _ = call("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", {"returnSecureToken": True}); times.append(time.perf_counter() - t)
        assert s == 200
    return times
uri = f"http://127.0.0.1:{hook.server_address[1]}/run.app"
results = {}
for round in range(3):
    config({})
    time.sleep(6)  # past the project cache
    base = run()
    config({"beforeCreate": {"functionUri": uri}, "beforeSignIn": {"functionUri": uri}})
    before = calls[0]
    time.sleep(6)
    hooked = run()
    mb, mh = statistics.median(base), statistics.median(hooked)
    print(f"hook calls in the hooked run: {calls[0] - before}")
    print(f"round {round}: median sign-up {mb*1000:.2f} ms without, {mh*1000:.2f} ms with two no-op hooks; +{(mh-mb)*1000:.2f} ms, ratio {mh/mb:.2f}")

-- POSTs the JSON body in $BODY to the path of the URL; for signInWithPassword, lookup and refresh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("BODY")

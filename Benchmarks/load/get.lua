-- A plain GET (the HTTP stack's own ceiling: GET /healthz).
wrk.method = "GET"

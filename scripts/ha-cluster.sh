#!/usr/bin/env bash
# A PostgreSQL cluster that fails over by itself, on loopback, for rehearsing a failover under Hearth and for
# HAFailoverTests: pg_auto_failover's monitor and three nodes (one primary, two synchronous-quorum standbys).
#
#   bash scripts/ha-cluster.sh start DIR [BASEPORT]  # monitor on BASEPORT (default 16000), nodes on the next three;
#                                                   # prints Hearth's connection string
#   bash scripts/ha-cluster.sh url DIR              # the connection string again
#   bash scripts/ha-cluster.sh state DIR            # pg_autoctl show state
#   bash scripts/ha-cluster.sh primary DIR          # the node the monitor made primary: "node2 16002"
#   bash scripts/ha-cluster.sh kill DIR NODE        # kill -9 the node's keeper and PostgreSQL (a lost machine)
#   bash scripts/ha-cluster.sh restart DIR NODE     # starts it again; it rejoins as a standby
#   bash scripts/ha-cluster.sh wait DIR NODE STATE [SECONDS]  # until the node reports STATE (e.g. secondary)
#   bash scripts/ha-cluster.sh sql DIR NODE QUERY   # runs QUERY on the node (e.g. SELECT pg_is_in_recovery())
#   bash scripts/ha-cluster.sh stop DIR             # kills everything and removes DIR
#
# Needs Debian's postgresql-15-auto-failover and pg-auto-failover-cli. As root, the cluster runs as `postgres`.
# The monitor's timings are cut from pg_auto_failover's defaults (a failover in about 8 s instead of about 50 s):
# docs/high-availability.md says what each one trades.
set -euo pipefail
command=${1:?usage: ha-cluster.sh start|url|state|primary|kill|restart|wait|stop DIR ...}
dir=${2:?the folder of the cluster}
bindir=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
export PATH="$bindir:$PATH"

# pg_autoctl keeps state under the XDG folders too: inside DIR, so a cluster leaves nothing behind.
as_owner() {
  local env=(PATH="$PATH" XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_RUNTIME_DIR="$dir/xdg/run")
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- env "${env[@]}" "$@"; else env "${env[@]}" "$@"; fi
}
base() { cat "$dir/baseport"; }
monitor_sql() { as_owner psql -X -q -At -h 127.0.0.1 -p "$(base)" -d pg_auto_failover -c "$1"; }
node_port() { echo $(( $(base) + ${1#node} )); }

# kill_all NAME: kill -9 PostgreSQL of NAME (monitor, node1...) with its children, and its keeper with everything in
# the keeper's session (its services rename themselves). Each keeper was started by setsid.
kill_all() {
  local pid sid round
  for round in 1 2; do  # PostgreSQL first (the keeper's session may hold it), and again if the keeper restarted it
    # PostgreSQL's children (the logger, pg_auto_failover's health-check worker) lead sessions of their own and
    # outlive a killed postmaster: they are killed by parent, before it.
    for pid in $(pgrep -f -- "-D $dir/$1( |\$)" || true); do
      pkill -9 -P "$pid" 2>/dev/null || true
      kill -9 "$pid" 2>/dev/null || true
    done
    [ $round = 2 ] && break
    for pid in $(pgrep -f -- "--pgdata $dir/$1( |\$)" || true); do
      sid=$(ps -o sid= -p "$pid" | tr -d ' ')
      # Only a session the keeper leads: the runuser above it shares the caller's session, which must live on.
      [ "$sid" = "$pid" ] && pkill -9 -s "$sid" 2>/dev/null || true
    done
  done
}

start_node() {  # start_node NAME: the keeper, which creates the node the first time and runs it after
  local name=$1 port
  port=$(node_port "$name")
  (as_owner setsid pg_autoctl create postgres --pgdata "$dir/$name" --pgport "$port" --hostname 127.0.0.1 \
      --listen 127.0.0.1 --name "$name" --auth trust --no-ssl \
      --monitor "postgres://autoctl_node@127.0.0.1:$(base)/pg_auto_failover?sslmode=disable" --run \
      >>"$dir/$name.log" 2>&1 &)
}

wait_state() {  # wait_state NAME STATE SECONDS
  local name=$1 state=$2 deadline=$(( SECONDS + ${3:-120} ))
  until [ "$(monitor_sql "SELECT reportedstate FROM pgautofailover.node WHERE nodename = '$name'" 2>/dev/null)" = "$state" ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "ha-cluster: $name did not reach $state in time; its log: $dir/$name.log" >&2
      as_owner pg_autoctl show state --pgdata "$dir/monitor" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
}

url() {
  local hosts=()
  for name in node1 node2 node3; do hosts+=("127.0.0.1:$(node_port $name)"); done
  echo "postgres://postgres@$(IFS=,; echo "${hosts[*]}")/postgres?target_session_attrs=read-write"
}

case $command in
  start)
    command -v pg_autoctl >/dev/null || { echo "ha-cluster: pg_autoctl is missing (apt-get install postgresql-15-auto-failover pg-auto-failover-cli)" >&2; exit 2; }
    mkdir -p "$dir/xdg/config" "$dir/xdg/data" "$dir/xdg/run"
    chmod 700 "$dir/xdg/run"
    echo "${3:-16000}" >"$dir/baseport"
    [ "$(id -u)" = 0 ] && chown -R postgres "$dir"
    as_owner pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$(base)" --hostname 127.0.0.1 \
      --listen 127.0.0.1 --auth trust --no-ssl >"$dir/monitor.log" 2>&1
    (as_owner setsid pg_autoctl run --pgdata "$dir/monitor" >>"$dir/monitor.log" 2>&1 &)
    deadline=$(( SECONDS + 60 ))
    until monitor_sql "SELECT 1" >/dev/null 2>&1; do
      [ $SECONDS -lt $deadline ] || { echo "ha-cluster: the monitor did not start; its log: $dir/monitor.log" >&2; exit 1; }
      sleep 0.2
    done
    # Failure detected in about 3 s, and the standby promoted 3 s later: the keeper of a primary cut off from the
    # monitor and its standbys stops its PostgreSQL after network_partition_timeout (set below to 2 s), so by then
    # no second primary can take writes.
    for setting in "health_check_period = 1000" "health_check_timeout = 1000" "health_check_max_retries = 1" \
                   "health_check_retry_delay = 500" "node_considered_unhealthy_timeout = 2000" \
                   "primary_demote_timeout = 3000"; do
      monitor_sql "ALTER SYSTEM SET pgautofailover.$setting" >/dev/null
    done
    monitor_sql "SELECT pg_reload_conf()" >/dev/null
    for name in node1 node2 node3; do
      start_node "$name"
      # One at a time: the first becomes the primary, the others are cloned from it.
      wait_state "$name" "$([ "$name" = node1 ] && echo single || echo secondary)" 180
      # The keeper may be rewriting its configuration file just then ("Failed to find section"): asked again.
      for attempt in $(seq 1 40); do
        as_owner pg_autoctl config set --pgdata "$dir/$name" timeout.network_partition_timeout 2 >/dev/null 2>&1 && break
        [ "$attempt" = 40 ] && echo "ha-cluster: could not set $name's network_partition_timeout; it keeps the default" >&2
        sleep 0.25
      done
    done
    url
    ;;
  url) url ;;
  state) as_owner pg_autoctl show state --pgdata "$dir/monitor" ;;
  primary) monitor_sql "SELECT nodename || ' ' || nodeport FROM pgautofailover.node WHERE goalstate IN ('single', 'primary', 'wait_primary') ORDER BY nodeid LIMIT 1" ;;
  kill) kill_all "${3:?the node}" ;;
  restart) start_node "${3:?the node}" ;;
  sql) as_owner psql -X -q -At -h 127.0.0.1 -p "$(node_port "${3:?the node}")" -d postgres -c "${4:?the query}" ;;
  wait) wait_state "${3:?the node}" "${4:?the state}" "${5:-120}" ;;
  stop)
    for name in node1 node2 node3 monitor; do kill_all "$name"; done
    rm -rf "$dir"
    ;;
  *) echo "ha-cluster: unknown command $command" >&2; exit 2 ;;
esac

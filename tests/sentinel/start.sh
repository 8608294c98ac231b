# tests/sentinel/start.sh — a master, one replica and three sentinels on free
# loopback ports, for the Sentinel tests. Sourced after tests/lib/common.sh:
#
#   source tests/lib/common.sh; source tests/sentinel/start.sh
#   trap stop_redis_all EXIT
#   sentinel_topology_start || exit 1
#
# Sets SENTINEL_MASTER_PORT/_PID, SENTINEL_REPLICA_PORT/_PID, SENTINEL_PORTS
# (comma-separated) and SENTINEL_PIDS (array); every process is in
# SUITE_REDIS_PIDS, so stop_redis_all (common.sh) stops them all. Data and
# configuration files live under $DISTLOCK_LOG_DIR (a mktemp -d by default).
# Sentinel settings (redis.io "High availability with Redis Sentinel"):
# quorum 2, down-after-milliseconds 1000, failover-timeout 5000,
# parallel-syncs 1; every address is 127.0.0.1, so no announce-ip is needed.

SENTINEL_NAME=${SENTINEL_NAME:-mymaster}
SENTINEL_TOPOLOGY_N=0

# sentinel_cli PORT ARGS...: redis-cli against one server, quietly.
sentinel_cli() {
    local port=$1
    shift
    "${REDIS_CLI:-redis-cli}" -h 127.0.0.1 -p "$port" "$@" 2>/dev/null
}

# sentinel_start_one NAME MASTER_PORT: one sentinel; appends to SENTINEL_PORTS/SENTINEL_PIDS.
sentinel_start_one() {
    local name=$1 mport=$2 port pid dir conf try i
    dir="$DISTLOCK_LOG_DIR/$name"
    mkdir -p "$dir"
    for try in 1 2 3 4 5; do
        port=$(free_port) || return 1
        conf="$dir/sentinel.conf"   # sentinel rewrites it: it must be writable, one per sentinel
        cat >"$conf" <<CONF
port $port
bind 127.0.0.1
daemonize no
dir $dir
logfile $DISTLOCK_LOG_DIR/$name.log
sentinel monitor $SENTINEL_NAME 127.0.0.1 $mport 2
sentinel down-after-milliseconds $SENTINEL_NAME 1000
sentinel failover-timeout $SENTINEL_NAME 5000
sentinel parallel-syncs $SENTINEL_NAME 1
CONF
        "${REDIS_SERVER:-redis-server}" "$conf" --sentinel </dev/null >/dev/null 2>&1 3>&- 4>&- &
        pid=$!
        SUITE_REDIS_PIDS+=("$pid")
        for i in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            if [ "$(sentinel_cli "$port" ping)" = PONG ]; then
                SENTINEL_PORTS="${SENTINEL_PORTS:+$SENTINEL_PORTS,}$port"
                SENTINEL_PIDS+=("$pid")
                note "$name: pid $pid, 127.0.0.1:$port (sentinel)"
                return 0
            fi
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    excerpt "$DISTLOCK_LOG_DIR/$name.log" --tail
    return 1
}

# sentinel_field PORT FIELD: a field of SENTINEL MASTER <name> on one sentinel.
sentinel_field() {
    sentinel_cli "$1" sentinel master "$SENTINEL_NAME" | awk -v f="$2" 'prev == f { print; exit } { prev = $0 }'
}

# sentinel_wait_ready [SECONDS]: until every sentinel sees the master, the
# replica and the two other sentinels.
sentinel_wait_ready() {
    local limit=${1:-60} i p ok
    for i in $(seq 1 $((limit * 5))); do
        ok=1
        for p in ${SENTINEL_PORTS//,/ }; do
            [ "$(sentinel_field "$p" num-slaves)" = 1 ] || ok=0
            [ "$(sentinel_field "$p" num-other-sentinels)" = 2 ] || ok=0
            [ "$(sentinel_field "$p" port)" = "$SENTINEL_MASTER_PORT" ] || ok=0
        done
        [ "$ok" = 1 ] && return 0
        sleep 0.2
    done
    note "the sentinels did not see the whole topology within $limit s"
    for p in ${SENTINEL_PORTS//,/ }; do sentinel_cli "$p" sentinel master "$SENTINEL_NAME" | paste -sd' ' | cut -c1-300; done
    return 1
}

# sentinel_wait_replica_synced [SECONDS]: until the replica's link is up.
sentinel_wait_replica_synced() {
    local limit=${1:-30} i
    for i in $(seq 1 $((limit * 10))); do
        sentinel_cli "$SENTINEL_REPLICA_PORT" info replication | grep -q '^master_link_status:up' && return 0
        sleep 0.1
    done
    note "the replica did not sync within $limit s"
    return 1
}

# sentinel_topology_start: a fresh master + replica + 3 sentinels (any earlier
# topology's processes keep running until stop_redis_all).
sentinel_topology_start() {
    local n i
    SENTINEL_TOPOLOGY_N=$((SENTINEL_TOPOLOGY_N + 1))
    n=$SENTINEL_TOPOLOGY_N
    SENTINEL_PORTS=
    SENTINEL_PIDS=()
    start_redis "t$n-master" "" --repl-diskless-sync yes --repl-diskless-sync-delay 0 || return 1
    SENTINEL_MASTER_PORT=$STARTED_PORT SENTINEL_MASTER_PID=$STARTED_PID
    start_redis "t$n-replica" "" --replicaof 127.0.0.1 "$SENTINEL_MASTER_PORT" --repl-diskless-sync-delay 0 || return 1
    SENTINEL_REPLICA_PORT=$STARTED_PORT SENTINEL_REPLICA_PID=$STARTED_PID
    sentinel_wait_replica_synced || return 1
    for i in 1 2 3; do sentinel_start_one "t$n-sentinel$i" "$SENTINEL_MASTER_PORT" || return 1; done
    sentinel_wait_ready || return 1
    export SENTINEL_NAME SENTINEL_MASTER_PORT SENTINEL_MASTER_PID SENTINEL_REPLICA_PORT SENTINEL_REPLICA_PID SENTINEL_PORTS
}

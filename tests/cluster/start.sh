# tests/cluster/start.sh — a throw-away 6-node Redis Cluster (3 masters, 3
# replicas) on free loopback ports, for the cluster suites. Source it after
# tests/lib/common.sh, then call cluster_start.
#
#   cluster_start        starts the nodes, creates the cluster, waits until
#                        every node says cluster_state:ok, knows all 6 nodes,
#                        and every master has its replica online. Exports:
#                          CLUSTER_PORTS      the 6 ports (array; masters first as created)
#                          CLUSTER_SEED_PORT  the first port
#                          DISTLOCK_TEST_CLUSTER_SEEDS  "127.0.0.1:P1,127.0.0.1:P2,..."
#                        and stops every node, and removes their data, on exit (trap).
#   ccli PORT ARGS...    redis-cli against one node
#   cluster_node_id PORT its node id
#   cluster_wait_ok      waits (30 s) for cluster_state:ok and agreement on every node
#   cluster_stop         stops the nodes now

CLUSTER_PORTS=()
CLUSTER_DIR=

ccli() { local p=$1; shift; "${REDIS_CLI:-redis-cli}" -p "$p" "$@"; }
# cok PORT ARGS...: a command that must answer OK (redis-cli exits 0 on error replies).
cok() { local out; out=$(ccli "$@" 2>&1); [ "$out" = OK ] || { note "redis-cli -p $*: $out"; return 1; }; }
cluster_node_id() { ccli "$1" CLUSTER MYID; }

cluster_stop() {
    stop_redis_all
    [ -n "$CLUSTER_DIR" ] && rm -rf "$CLUSTER_DIR"
    CLUSTER_DIR=
}

# 1 when every node is ok, knows 6 nodes, and all agree on the owner of slot 0..16383 (sampled).
cluster_converged() {
    local p info
    for p in "${CLUSTER_PORTS[@]}"; do
        info=$(ccli "$p" CLUSTER INFO 2>/dev/null) || return 1
        grep -q 'cluster_state:ok' <<<"$info" || return 1
        grep -q 'cluster_known_nodes:6' <<<"$info" || return 1
        grep -q 'cluster_slots_assigned:16384' <<<"$info" || return 1
    done
    return 0
}

cluster_wait_ok() {
    local i
    for i in $(seq 1 300); do
        cluster_converged && return 0
        sleep 0.1
    done
    note "the cluster did not converge in 30 s"
    return 1
}

# Every master has one replica online with the master's offset.
cluster_replicas_synced() {
    local p info n=0
    for p in "${CLUSTER_PORTS[@]}"; do
        info=$(ccli "$p" INFO replication 2>/dev/null) || return 1
        grep -q '^role:master' <<<"$info" || continue
        grep -q 'connected_slaves:1' <<<"$info" || return 1
        grep -q 'slave0:.*state=online' <<<"$info" || return 1
        n=$((n + 1))
    done
    [ "$n" -eq 3 ]
}

cluster_start() {
    local i port addrs=()
    CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/distlock-cluster.XXXXXX")
    trap 'cluster_stop' EXIT
    for i in 1 2 3 4 5 6; do
        mkdir -p "$CLUSTER_DIR/n$i"
        start_redis "cluster-$i" "" --cluster-enabled yes --cluster-config-file nodes.conf \
            --cluster-node-timeout 3000 --repl-diskless-sync-delay 0 --dir "$CLUSTER_DIR/n$i" || return 1
        CLUSTER_PORTS+=("$STARTED_PORT")
        addrs+=("127.0.0.1:$STARTED_PORT")
    done
    "${REDIS_CLI:-redis-cli}" --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes \
        >"$DISTLOCK_LOG_DIR/cluster-create.log" 2>&1 \
        || { excerpt "$DISTLOCK_LOG_DIR/cluster-create.log" --tail; return 1; }
    cluster_wait_ok || return 1
    for i in $(seq 1 300); do
        cluster_replicas_synced && break
        sleep 0.1
    done
    cluster_replicas_synced || { note "replicas not in sync after 30 s"; return 1; }
    CLUSTER_SEED_PORT=${CLUSTER_PORTS[0]}
    DISTLOCK_TEST_CLUSTER_SEEDS=$(printf '127.0.0.1:%s,' "${CLUSTER_PORTS[@]}")
    DISTLOCK_TEST_CLUSTER_SEEDS=${DISTLOCK_TEST_CLUSTER_SEEDS%,}
    export CLUSTER_SEED_PORT DISTLOCK_TEST_CLUSTER_SEEDS
    note "cluster: $DISTLOCK_TEST_CLUSTER_SEEDS"
}

# The port of the master serving SLOT, as the seed sees it (CLUSTER NODES).
cluster_owner_port() {
    ccli "$CLUSTER_SEED_PORT" CLUSTER NODES | awk -v s="$1" '
        $3 ~ /master/ {
            for (i = 9; i <= NF; i++) {
                if ($i ~ /^\[/) continue              # [slot->-id] migration markers
                n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1])
                if (s + 0 >= lo + 0 && s + 0 <= hi + 0) { split($2, a, "@"); sub(/.*:/, "", a[1]); print a[1]; found = 1; exit }
            }
        }
        END { exit !found }'
}

# Migrates SLOT from its master to the master on port DST, in passes (keys
# keep arriving while clients run), the way redis.io documents resharding:
# IMPORTING on the target, MIGRATING on the source, MIGRATE the keys, then
# SETSLOT NODE on both (and every master).
cluster_migrate_slot() {
    local slot=$1 dst=$2 src src_id dst_id keys pass p
    src=$(cluster_owner_port "$slot") || { note "no owner of slot $slot"; return 1; }
    [ "$src" = "$dst" ] && return 0
    src_id=$(cluster_node_id "$src")
    dst_id=$(cluster_node_id "$dst")
    cok "$dst" CLUSTER SETSLOT "$slot" IMPORTING "$src_id" || return 1
    cok "$src" CLUSTER SETSLOT "$slot" MIGRATING "$dst_id" || return 1
    for pass in 1 2 3 4 5 6 7 8 9 10; do
        # keys move a few at a time, with pauses: clients see ASK and TRYAGAIN meanwhile
        keys=$(ccli "$src" --raw CLUSTER GETKEYSINSLOT "$slot" 3)
        if [ -n "$keys" ]; then
            # shellcheck disable=SC2086
            cok "$src" MIGRATE 127.0.0.1 "$dst" "" 0 5000 REPLACE KEYS $keys || return 1
        fi
        sleep 0.1
    done
    while keys=$(ccli "$src" --raw CLUSTER GETKEYSINSLOT "$slot" 100) && [ -n "$keys" ]; do
        # shellcheck disable=SC2086
        cok "$src" MIGRATE 127.0.0.1 "$dst" "" 0 5000 REPLACE KEYS $keys || return 1
    done
    cok "$dst" CLUSTER SETSLOT "$slot" NODE "$dst_id" || return 1
    cok "$src" CLUSTER SETSLOT "$slot" NODE "$dst_id" || return 1
    for p in "${CLUSTER_PORTS[@]}"; do
        ccli "$p" INFO replication | grep -q '^role:master' && { cok "$p" CLUSTER SETSLOT "$slot" NODE "$dst_id" || return 1; }
    done
    return 0
}

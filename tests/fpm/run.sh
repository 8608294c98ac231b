#!/usr/bin/env bash
# tests/fpm/run.sh — the extension where web apps run it: Debian's php<series>-fpm
# (DISTLOCK_PHP_SERIES, default 8.2; tests/php84 runs it with 8.4)
# (pool "www": static, 4 workers; pool "recycle": static, 2 workers,
# pm.max_requests=5) behind nginx-light on a free loopback port, with a
# throw-away redis-server of its own, driven by HTTP (ab, curl). The scripts
# served are tests/fpm/www/*.php; every DistLock there uses a persistent
# connection. Config, pid, socket, temp and log files live in the log
# directory: /etc/php and /etc/nginx are only read (fastcgi_params). One
# counted check each: the module loads in php-fpm; 400 locked
# read-modify-writes at concurrency 8 lose no update; 100 requests open at most
# one connection per worker; a fatal error, exit() and max_execution_time while
# holding a lease leave no key; a worker killed by SIGKILL while holding a
# lease (under the watchdog) loses it within its TTL and the pool keeps
# serving; pm.max_requests recycling leaves no key, no connection and no
# abnormal worker exit behind.
set -uo pipefail
source tests/lib/common.sh
dir="$DISTLOCK_LOG_DIR"
www="$PWD/tests/fpm/www"
data="$dir/data"
FPM_PID= NGINX_PID=
stop_all() {
    local p
    for p in $NGINX_PID $FPM_PID; do kill -TERM "$p" 2>/dev/null; done
    for p in $NGINX_PID $FPM_PID; do
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null
    done
    NGINX_PID= FPM_PID=
    stop_redis_all
}
trap stop_all EXIT

PHP_SERIES=${DISTLOCK_PHP_SERIES:-8.2}
section "php$PHP_SERIES-fpm and nginx-light"
if ! ensure_packages "php$PHP_SERIES-fpm" nginx-light apache2-utils curl; then
    suite_fail "fpm: apt-get install php$PHP_SERIES-fpm nginx-light apache2-utils curl"
    suite_end
fi
mkdir -p "$data" "$dir/nginx-tmp"
start_redis fpm "" || { suite_fail "fpm: redis-server did not start"; suite_end; }
redis_port=$STARTED_PORT
rcli() { "${REDIS_CLI:-redis-cli}" -p "$redis_port" "$@"; }

# php-fpm: two pools on unix sockets, the built extension, errors to a log.
cat >"$dir/php.ini" <<EOF
extension=$DISTLOCK_SO
display_errors=Off
log_errors=On
error_log=$dir/php-errors.log
max_execution_time=30
EOF
pool() {   # pool NAME WORKERS MAX_REQUESTS
    cat <<EOF
[$1]
listen = $dir/fpm-$1.sock
listen.mode = 0666
pm = static
pm.max_children = $2
pm.max_requests = $3
catch_workers_output = yes
clear_env = yes
env[DISTLOCK_FPM_REDIS] = redis://127.0.0.1:$redis_port
env[DISTLOCK_FPM_DATA] = $data
EOF
}
{
    printf '[global]\npid = %s\nerror_log = %s\nlog_level = notice\ndaemonize = no\n\n' "$dir/php-fpm.pid" "$dir/php-fpm.log"
    pool www 4 0
    pool recycle 2 5
} >"$dir/php-fpm.conf"
"php-fpm$PHP_SERIES" -F -R -y "$dir/php-fpm.conf" -c "$dir/php.ini" </dev/null >"$dir/php-fpm.out" 2>&1 &
FPM_PID=$!

# nginx: the scripts of tests/fpm/www; /recycle/x.php goes to the recycle pool.
http_port=$(free_port)
cat >"$dir/nginx.conf" <<EOF
user root;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log notice;
events { worker_connections 256; }
http {
    access_log $dir/nginx-access.log;
    client_body_temp_path $dir/nginx-tmp/body;
    fastcgi_temp_path $dir/nginx-tmp/fastcgi;
    proxy_temp_path $dir/nginx-tmp/proxy;
    scgi_temp_path $dir/nginx-tmp/scgi;
    uwsgi_temp_path $dir/nginx-tmp/uwsgi;
    server {
        listen 127.0.0.1:$http_port;
        root $www;
        fastcgi_read_timeout 120s;
        location ~ ^/recycle/([a-z]+\.php)\$ {
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME \$document_root/\$1;
            fastcgi_pass unix:$dir/fpm-recycle.sock;
        }
        location ~ ^/[a-z]+\.php\$ {
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
            fastcgi_pass unix:$dir/fpm-www.sock;
        }
        location / { return 404; }
    }
}
EOF
nginx -e "$dir/nginx-error.log" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' </dev/null >"$dir/nginx.out" 2>&1 &
NGINX_PID=$!
base="http://127.0.0.1:$http_port"
note "nginx $base (pid $NGINX_PID), php-fpm$PHP_SERIES (pid $FPM_PID), redis-server 127.0.0.1:$redis_port; logs in $dir"

# get PATH: sets BODY and HTTP_STATUS.
get() {
    local out
    out=$(curl -s --max-time 60 -w '\n%{http_code}' "$base$1")
    HTTP_STATUS=${out##*$'\n'} BODY=${out%$'\n'*}
    BODY=${BODY%$'\n'}
}
workers() { pgrep -P "$FPM_PID" | wc -l; }     # children of the fpm master
keys() { rcli --scan --pattern "$1" | wc -l; }
# The connections open on our redis-server other than the asking redis-cli's.
ext_clients() { rcli client list | grep -vc 'cmd=client|list'; }
total_conns() { rcli info stats | sed -nE 's/^total_connections_received:([0-9]+).*/\1/p'; }
# wait_until SECONDS CMD...: polls CMD every 50 ms; fails after SECONDS.
wait_until() {
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do [ "$SECONDS" -ge "$deadline" ] && return 1; sleep 0.05; done
}

# 1. Both servers up and the module loaded in php-fpm.
want=$(sed -nE 's/^#define PHP_DISTLOCK_VERSION "([^"]+)"/\1/p' php_distlock.h)
up() { get /info.php; [ "$(awk 'NR == 1 {print $1, $2}' <<<"$BODY")" = "fpm-fcgi $want" ]; }
# The workers counted until all 6 are there: under load (tests/hostile runs this
# beside three suites) a www worker answered while the master had not yet forked
# the recycle pool's two.
if wait_until 15 up && wait_until 10 eval '[ "$(workers)" = 6 ]'; then
    suite_pass "fpm: nginx and php-fpm8.2 serve, distlock $want loaded in fpm-fcgi, 4 + 2 workers"
else
    excerpt "$dir/php-fpm.out" --tail; excerpt "$dir/php-fpm.log" --tail; excerpt "$dir/nginx-error.log" --tail
    suite_fail "fpm: the servers did not come up (info.php said '${BODY:-}', status ${HTTP_STATUS:-}; $(workers) fpm workers)"
    suite_end
fi

# 2. 100 requests, each a new DistLock that locks and releases: at most one connection per worker.
c0=$(total_conns)
ab -q -n 100 -c 8 "$base/cycle.php" >"$dir/ab-cycle.txt" 2>&1
c1=$(total_conns)
opened=$((c1 - c0 - 1)) now=$(ext_clients)
failed=$(sed -nE 's/^Failed requests: +([0-9]+).*/\1/p' "$dir/ab-cycle.txt")
non2xx=$(sed -nE 's/^Non-2xx responses: +([0-9]+).*/\1/p' "$dir/ab-cycle.txt")
if [ "${failed:-x}" = 0 ] && [ -z "$non2xx" ] && [ "$opened" -ge 1 ] && [ "$opened" -le 4 ] && [ "$now" -le 4 ]; then
    suite_pass "fpm: 100 requests (ab -c 8) opened $opened connection(s) for 4 workers; $now open"
else
    excerpt "$dir/ab-cycle.txt" --tail
    suite_fail "fpm: 100 requests opened $opened connections ($now open; want 1..4, one per worker at most); failed ${failed:-?}, non-2xx ${non2xx:-0}"
fi

# 3. 400 locked read-modify-writes at concurrency 8 lose no update.
echo 0 >"$data/counter"
ab -q -n 400 -c 8 "$base/rmw.php" >"$dir/ab-rmw.txt" 2>&1
n=$(cat "$data/counter") failed=$(sed -nE 's/^Failed requests: +([0-9]+).*/\1/p' "$dir/ab-rmw.txt")
non2xx=$(sed -nE 's/^Non-2xx responses: +([0-9]+).*/\1/p' "$dir/ab-rmw.txt")
if [ "$n" = 400 ] && [ "${failed:-x}" = 0 ] && [ -z "$non2xx" ] && [ "$(keys 'lock:rmw')" = 0 ]; then
    suite_pass "fpm: 400 locked read-modify-writes at concurrency 8: counter 400, no update lost, no key left ($(sed -nE 's/^Requests per second: +([0-9.]+).*/\1/p' "$dir/ab-rmw.txt") req/s)"
else
    excerpt "$dir/ab-rmw.txt" --tail
    suite_fail "fpm: locked read-modify-writes: counter $n of 400, failed ${failed:-?}, non-2xx ${non2xx:-0}, keys left $(keys 'lock:rmw')"
fi
# What the lock prevents (not counted: a race, shown for scale).
echo 0 >"$data/counter"
ab -q -n 200 -c 8 "$base/rmw.php?nolock=1" >"$dir/ab-nolock.txt" 2>&1
note "without the lock, 200 read-modify-writes at concurrency 8 counted $(cat "$data/counter")"

# 4-6. A request that ends by a fatal error, exit() or max_execution_time while holding a 30 s lease.
for how in fatal exit timeout; do
    case $how in
        fatal) want_status=500 want_log="Allowed memory size of" ;;
        exit) want_status=200 want_log= ;;     # and the body exit() printed
        timeout) want_status=500 want_log="Maximum execution time of 1 second exceeded" ;;
    esac
    name="die-$how"
    rm -f "$data/$name.held"
    get "/die.php?name=$name&how=$how"
    t_end=$SECONDS
    gone() { [ "$(rcli exists "lock:$name")" = 0 ]; }
    why=
    [ -s "$data/$name.held" ] || why="the request did not take the lock"
    [ -z "$why" ] && [ "$HTTP_STATUS" != "$want_status" ] && why="status $HTTP_STATUS, want $want_status"
    [ -z "$why" ] && [ "$how" = exit ] && [ "$BODY" != "exit while holding the lock" ] && why="body '$BODY'"
    [ -z "$why" ] && [ -n "$want_log" ] && ! grep -q "$want_log" "$dir/php-errors.log" 2>/dev/null && why="no '$want_log' in the PHP error log"
    [ -z "$why" ] && ! wait_until 3 gone && why="the key is still there $((SECONDS - t_end)) s after the response (ttl $(rcli pttl "lock:$name") ms left of 30 s)"
    if [ -z "$why" ]; then
        suite_pass "fpm: a request ended by $how while holding a 30 s lease (status $HTTP_STATUS) leaves no key behind"
    else
        note "body: $(printf '%s' "$BODY" | head -c 300)"
        suite_fail "fpm: request ended by $how: $why"
    fi
done

# 7. SIGKILL of a worker that holds a 2 s lease under the watchdog.
name=killed ttl=2
rm -f "$data/$name.pid"
curl -s --max-time 90 "$base/kill.php?name=$name&ttl=$ttl" >"$dir/kill-response.txt" 2>&1 &
curl_pid=$!
why=
if ! wait_until 10 test -s "$data/$name.pid"; then
    why="the request did not take the lock"
else
    victim=$(cat "$data/$name.pid")
    sleep 3    # longer than the ttl: the watchdog keeps the lease alive
    [ "$(rcli exists "lock:$name")" = 1 ] || why="the lease did not outlive its ttl under the watchdog before the kill"
fi
if [ -z "$why" ]; then
    left=$(rcli pttl "lock:$name")
    kill -KILL "$victim"
    t_kill=$(date +%s%N)
    gone() { [ "$(rcli exists "lock:$name")" = 0 ]; }
    if ! wait_until $((ttl + 3)) gone; then
        why="the key is still there $((ttl + 3)) s after the kill"
    else
        took_ms=$((($(date +%s%N) - t_kill) / 1000000))
        # Expiry, not a release: the key lives about what was left of its lease (+ polling and a loaded machine).
        [ "$took_ms" -le $((left + 1500)) ] || why="the key went $took_ms ms after the kill; $left ms were left"
    fi
fi
wait "$curl_pid" 2>/dev/null
if [ -z "$why" ]; then
    serving=0
    for _ in $(seq 1 20); do get /info.php; [ "$HTTP_STATUS" = 200 ] && serving=$((serving + 1)); done
    get "/cycle.php?name=$name"; relock=$BODY
    respawned() { [ "$(workers)" = 6 ]; }
    if [ "$serving" != 20 ]; then why="after the kill $serving of 20 requests were served"
    elif [[ "$relock" != released* ]]; then why="the name could not be locked again: $relock"
    elif ! wait_until 5 respawned; then why="the master has $(workers) workers, not 6"
    elif ! grep -q "child $victim exited on signal 9" "$dir/php-fpm.log"; then why="php-fpm did not log the SIGKILL of child $victim"
    fi
fi
if [ -z "$why" ]; then
    suite_pass "fpm: a worker killed by SIGKILL lost its lease by expiry $took_ms ms later ($left ms were left of ${ttl} s); 20/20 requests served after, the name locks again, 4 + 2 workers"
else
    suite_fail "fpm: SIGKILL of a lease holder: $why"
fi

# 8. pm.max_requests=5 recycles the 2 workers of pool "recycle" while their requests end holding leases.
c_before=$(ext_clients)
pids=()
bad=0
for i in $(seq 1 40); do
    get "/recycle/hold.php?name=recycle-$i"; pid=$BODY
    [ "$HTTP_STATUS" = 200 ] && [[ "$pid" =~ ^[0-9]+$ ]] && pids+=("$pid") || bad=$((bad + 1))
done
distinct=$(printf '%s\n' "${pids[@]+"${pids[@]}"}" | sort -u | wc -l)
exited_ok=$(grep -cE '\[pool recycle\] child [0-9]+ exited with code 0 ' "$dir/php-fpm.log")
abnormal=$(grep -E '\[pool recycle\] child [0-9]+ exited (on signal|with code [1-9])' "$dir/php-fpm.log" | head -n 5)
settled() { [ "$(ext_clients)" -le $((c_before + 2)) ]; }
wait_until 5 settled
if [ "$bad" = 0 ] && [ "$distinct" -ge 8 ] && [ "$exited_ok" -ge 6 ] && [ -z "$abnormal" ] &&
   [ "$(keys 'lock:recycle-*')" = 0 ] && settled; then
    suite_pass "fpm: pm.max_requests=5: 40 requests ending with a held lease, served by $distinct workers ($exited_ok recycled, exit code 0): no key, no extra connection left"
else
    [ -n "$abnormal" ] && printf '%s\n' "$abnormal" | sed 's/^/  | /'
    suite_fail "fpm: recycling: $bad bad responses, $distinct distinct workers (want >= 8), $exited_ok clean exits (want >= 6), $(keys 'lock:recycle-*') keys left, $(ext_clients) connections (were $c_before)"
fi

# Shown, not counted: warnings the workers logged (the fatal and timeout errors above are expected).
grep -E 'PHP (Warning|Notice|Deprecated)' "$dir/php-errors.log" 2>/dev/null | head -n 10 | sed 's/^/  php warning: /'
stop_all
suite_end

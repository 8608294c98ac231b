<?php
/*
 * bench/deadlock.php — what deadlock detection (issue 47, docs/deadlocks.md)
 * costs a wait, and that it costs nothing anywhere else. Run through
 * `bench/run --only=deadlock` (a throwaway redis-server, results in
 * bench/results-deadlock.md), or by hand:
 *
 *   php -d extension=/abs/modules/distlock.so bench/deadlock.php --redis=127.0.0.1:PORT
 *       [--quick] [--rounds=N] [--calls=N] [--cycles=N] [--detections=N] [--queue=N] [--pin[=CPU]] [--latency-us=N]
 *
 * Three sections, each in one process, its cells taking turns round by round
 * (one warm-up round, discarded, then N rounds; the order rotated each round),
 * each figure the median over the rounds with its spread (half of max − min),
 * each ratio the median of the rounds' own ratios with theirs:
 *
 * 1. Registration. A name X held by a holder process, with a queue of Q
 *    waiters already registered on it: Q entries written straight into
 *    X's waiters ZSET (<K>{<K>}:waiters, DL_SCRIPT_ACQUIRE) with live scores
 *    (now + the 3 s window), written again before every batch. The measured
 *    process holds one other lease (H) and calls lock(X, 10, W) with two
 *    instances, 'deadlock_detection' on and off. lock() first sends its plain
 *    SET, then (X taken) registers by script, with the check behind it when
 *    on; it gives up at once when the wait W is spent by then, with one
 *    cancel. W (µs) is tuned per cell as it runs so that most calls make
 *    exactly one registration (stats()['contended'] tells each call's: the
 *    SET's failure plus one per registration): the client µs are those
 *    calls' (3 round trips: SET, registration [+ check], cancel). Beside
 *    them, the server's side without any client: the same EVALSHAs distlock
 *    sent (taken from the slow log once, a fresh token each time) by a bare
 *    socket, the registration alone and the registration with the check
 *    behind it in one write, each followed by a plain ZREM that leaves the
 *    queue as it was; `CONFIG RESETSTAT` before each batch, `INFO
 *    commandstats` after: evalsha's usec_per_call, and its µs per
 *    registration. No slow log while timing.
 * 2. A 2-cycle. A child holds N1 and waits in lock(N2); this process holds N2
 *    and calls lock(N1): its registration closes the cycle and it gets
 *    DeadlockException. µs from the call to the exception, and its round
 *    trips (total_reads_processed), beside three PINGs.
 * 3. The uncontended cycle, holding another lease (H): tryLock()+release()
 *    and lock(name, 5, 5)+release(), detection on and off, beside two PINGs;
 *    with the bytes the server read and its round trips per cycle (INFO stats).
 *
 * --pin[=CPU] runs this process, its children and (when on this machine) the
 * server on one CPU (the last this process may use, or CPU), as bench/regress
 * --pin does: a cycle is then CPU work, without cross-CPU wake-ups.
 * --latency-us=N puts bench/lib/DelayProxy.php between distlock (and the
 * PINGs) and the server. Markdown to stdout, progress to stderr.
 */
declare(strict_types=1);

namespace Bench;

require __DIR__ . '/lib/util.php';
require __DIR__ . '/lib/resp.php';

errors_are_exceptions();

$opt = getopt('', ['redis:', 'quick', 'rounds:', 'calls:', 'cycles:', 'detections:', 'queue:', 'pin::', 'latency-us:', 'help']);
if (isset($opt['help']) || !isset($opt['redis'])) {
    fwrite(STDERR, "usage: deadlock.php --redis=HOST:PORT [--quick] [--rounds=N] [--calls=N] [--cycles=N] [--detections=N]\n"
        . "       [--queue=N] [--pin[=CPU]] [--latency-us=N]\n");
    exit(isset($opt['help']) ? 0 : 2);
}
foreach (['distlock', 'redis', 'pcntl', 'posix'] as $ext) {
    if (!extension_loaded($ext)) {
        fwrite(STDERR, "deadlock.php: the $ext extension is not loaded\n");
        exit(2);
    }
}
[$HOST, $PORT] = explode(':', (string) $opt['redis']) + [1 => '6379'];
$PORT = (int) $PORT;
$QUICK = isset($opt['quick']);
$CFG = [
    'rounds'     => (int) ($opt['rounds'] ?? ($QUICK ? 5 : 21)),       // measured rounds (+1 warm-up)
    'calls'      => (int) ($opt['calls'] ?? ($QUICK ? 100 : 300)),      // lock() calls per registration batch
    'cycles'     => (int) ($opt['cycles'] ?? ($QUICK ? 300 : 1000)),    // cycles per uncontended batch
    'detections' => (int) ($opt['detections'] ?? ($QUICK ? 30 : 100)), // lock() calls per detection batch
    'queue'      => (int) ($opt['queue'] ?? 100),                       // waiters registered on X
];
$WINDOW_MS = 3000;   // DL_WAITERS_TTL_MS: a waiter's entry is live until its score (ms)
$PREFIX = 'dlbench-' . getmypid() . ':';
$OPTS = ['prefix' => $PREFIX, 'timeout' => 10];

// ---- pinning, the proxy ----------------------------------------------------

$stats = redis_connect($HOST, $PORT, 'bench-stats');
$NPROC = trim((string) shell_exec('nproc 2>/dev/null'));   // before --pin narrows it
$ARGS = implode(' ', array_filter(array_slice($argv, 1), fn ($a) => !str_starts_with($a, '--redis=')));
$PIN = null;
$PIN_NOTE = '; not pinned';
if (array_key_exists('pin', $opt)) {
    if (trim((string) shell_exec('command -v taskset')) === '') {
        fwrite(STDERR, "deadlock.php: --pin needs taskset (util-linux)\n");
        exit(2);
    }
    $PIN = $opt['pin'] !== false && $opt['pin'] !== '' ? (string) $opt['pin']
        : (string) preg_replace('/.*[,-]/', '', trim((string) shell_exec('taskset -pc ' . getmypid() . " | sed 's/.*: //'")));
    shell_exec('taskset -pc ' . escapeshellarg($PIN) . ' ' . getmypid() . ' >/dev/null');
    preg_match('/process_id:(\d+)/', (string) $stats->rawCommand('INFO', 'server'), $m);
    $local = in_array($HOST, ['127.0.0.1', 'localhost', '::1'], true) && isset($m[1]) && posix_kill((int) $m[1], 0);
    $pinnedServer = $local && shell_exec('taskset -apc ' . escapeshellarg($PIN) . ' ' . (int) $m[1] . ' >/dev/null 2>&1 && echo ok') !== null;
    $PIN_NOTE = "; this process, its children" . ($pinnedServer ? ' and the server' : ' (not the server: not on this machine)') . " on CPU $PIN (`--pin`)";
}
$DHOST = $HOST;
$DPORT = $PORT;
if (isset($opt['latency-us'])) {
    require __DIR__ . '/lib/DelayProxy.php';
    $PROXY = new DelayProxy($HOST, $PORT, (int) $opt['latency-us']);
    [$DHOST, $DPORT] = ['127.0.0.1', $PROXY->port];
}
$URI = "redis://$DHOST:$DPORT";

/** A phpredis connection named $name. */
function redis_connect(string $host, int $port, string $name): \Redis
{
    $r = new \Redis();
    $r->connect($host, $port, 5.0);
    $r->client('setname', $name);
    return $r;
}

// ---- server counters -------------------------------------------------------

/** CONFIG RESETSTAT: the counters of a window start at 0. */
function reset_stats(\Redis $r): void
{
    $r->rawCommand('CONFIG', 'RESETSTAT');
}

/**
 * The counters since reset_stats(), less this INFO's own read and bytes (the
 * first INFO is read after the reset and counts itself): reads, bytes in,
 * and per command [calls, usec] from commandstats (Lua's calls included).
 */
function window(\Redis $r): array
{
    $st = (string) $r->rawCommand('INFO', 'stats');
    $cs = (string) $r->rawCommand('INFO', 'commandstats');
    preg_match('/total_reads_processed:(\d+)/', $st, $a);
    preg_match('/total_net_input_bytes:(\d+)/', $st, $b);
    $cmd = [];
    preg_match_all('/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/', $cs, $mm, PREG_SET_ORDER);
    foreach ($mm as $x) {
        $cmd[$x[1]] = [(int) $x[2], (int) $x[3]];
    }
    return ['reads' => (int) $a[1] - 1, 'in' => (int) $b[1] - strlen(resp_encode('INFO', 'stats')), 'cmd' => $cmd];
}

function calls_of(array $w, string $c): int { return $w['cmd'][$c][0] ?? 0; }
function usec_of(array $w, string $c): int { return $w['cmd'][$c][1] ?? 0; }

/** Median and spread (half of max − min) of a list. @return array{0: float, 1: float} */
function med_spread(array $xs): array
{
    return $xs ? [median($xs), (max($xs) - min($xs)) / 2] : [NAN, NAN];
}

/** "m ± s" with $dec decimals. */
function ms_fmt(array $xs, int $dec = 1): string
{
    [$m, $s] = med_spread($xs);
    return fmt($m, $dec) . ' ± ' . fmt($s, $dec);
}

/** The rounds' own ratios a[i] / b[i]. */
function ratios(array $a, array $b): array
{
    $r = [];
    foreach ($a as $i => $v) {
        if (isset($b[$i]) && $b[$i] > 0) {
            $r[] = $v / $b[$i];
        }
    }
    return $r;
}

// ---- a bare RESP socket (the server-only cells) ------------------------------

/** Reads one RESP reply from $s; returns it (arrays as lists, errors as "-ERR ..."). */
function resp_read($s): mixed
{
    $line = fgets($s);
    if ($line === false) {
        throw new \RuntimeException('connection closed');
    }
    $t = $line[0];
    $v = rtrim(substr($line, 1), "\r\n");
    switch ($t) {
        case '+': return $v;
        case '-': return "-$v";
        case ':': return (int) $v;
        case '$':
            if ((int) $v < 0) return null;
            $n = (int) $v + 2;
            $buf = '';
            while (strlen($buf) < $n) $buf .= fread($s, $n - strlen($buf));
            return substr($buf, 0, -2);
        case '*':
            if ((int) $v < 0) return null;
            $out = [];
            for ($i = 0; $i < (int) $v; $i++) $out[] = resp_read($s);
            return $out;
    }
    throw new \RuntimeException("bad reply: $line");
}

// ---- children --------------------------------------------------------------
// Forked before this process makes any DistLock, so that none is inherited.

/** Forks a child running $body($sock); returns [pid, the parent's end]. */
function spawn(\Closure $body): array
{
    [$a, $b] = pair();
    $pid = pcntl_fork();
    if ($pid < 0) {
        throw new \RuntimeException('fork failed');
    }
    if ($pid === 0) {
        fclose($a);
        try {
            $body($b);
        } catch (\Throwable $e) {
            fwrite(STDERR, 'child: ' . get_class($e) . ': ' . $e->getMessage() . "\n");
        }
        child_exit();
    }
    fclose($b);
    return [$pid, $a];
}

// the holder of X: takes it, says so, sleeps until killed
[$holderPid, $holderSock] = spawn(function ($s) use ($URI, $OPTS) {
    $d = new \DistLock($URI, $OPTS);
    $l = $d->lock('x', 3600);
    fwrite($s, 'R');
    for (;;) sleep(60);
});
// the other side of the 2-cycle: holds N1; on 'G', waits for N2 (again after a DeadlockException of its own: 'V')
[$aPid, $aSock] = spawn(function ($s) use ($URI, $OPTS) {
    $d = new \DistLock($URI, $OPTS);
    $l = $d->lock('n1', 3600);
    fwrite($s, 'R');
    if (read_exact($s, 1, 3600.0) !== 'G') return;
    for (;;) {
        try {
            $d->lock('n2', 3600, 3600);
            fwrite($s, 'X');   // granted: N2 was released, the cycle is gone
            for (;;) sleep(60);
        } catch (\DistLock\DeadlockException) {
            fwrite($s, 'V');
        }
    }
});
foreach ([$holderSock, $aSock] as $s) {
    if (read_exact($s, 1, 10.0) !== 'R') {
        fwrite(STDERR, "deadlock.php: a child did not start\n");
        exit(1);
    }
}
$cleanup = function () use ($stats, $holderPid, $aPid, $PREFIX) {
    foreach ([$holderPid, $aPid] as $p) {
        posix_kill($p, SIGKILL);
        pcntl_waitpid($p, $st);
    }
    $it = null;
    while (($keys = $stats->scan($it, $PREFIX . '*', 1000)) !== false) {
        if ($keys) $stats->del($keys);
        if ($it === 0) break;
    }
};

// ---- setup -------------------------------------------------------------------

$slowlogWas = $stats->config('GET', 'slowlog-log-slower-than')['slowlog-log-slower-than'] ?? '10000';
$slowlogLenWas = $stats->config('GET', 'slowlog-max-len')['slowlog-max-len'] ?? '128';
$stats->config('SET', 'slowlog-log-slower-than', '-1');
$stats->config('SET', 'slowlog-max-len', '100000');

$on = new \DistLock($URI, $OPTS);
$off = new \DistLock($URI, $OPTS + ['deadlock_detection' => false]);
$H = $on->lock('h', 3600);   // the one other lease this process holds
$K = $PREFIX . 'x';
$Q = "$K{{$K}}:waiters";
$queueTokens = [];
for ($i = 0; $i < $CFG['queue']; $i++) $queueTokens[] = bin2hex(random_bytes(16));

/** The queue of waiters on X, live for the next $WINDOW_MS (server clock). */
$refresh = function () use ($stats, $Q, $queueTokens, $WINDOW_MS) {
    if (!$queueTokens) return;
    [$sec, $us] = $stats->time();
    $score = (int) $sec * 1000 + intdiv((int) $us, 1000) + $WINDOW_MS;
    $args = [];
    foreach ($queueTokens as $t) {
        $args[] = $score;
        $args[] = $t;
    }
    $stats->zAdd($Q, ...$args);
    $stats->pExpire($Q, 60000);
};
$live = function () use ($stats, $Q): int {
    [$sec, $us] = $stats->time();
    return (int) $stats->zCount($Q, '(' . ((int) $sec * 1000 + intdiv((int) $us, 1000)), '+inf');
};

$header = function () use ($CFG, $stats, $PIN_NOTE, $opt, $NPROC, $ARGS) {
    $sh = fn (string $c): string => trim((string) shell_exec($c . ' 2>/dev/null'));
    preg_match('/redis_version:(\S+)/', (string) $stats->rawCommand('INFO', 'server'), $m);
    $load = implode(' ', array_map(fn ($x) => number_format($x, 2), sys_getloadavg()));
    return "# Deadlock detection: what it costs (issue 47)\n\n"
        . "Generated by `bench/deadlock.php" . ($ARGS !== '' ? " $ARGS" : '') . "` (" . date('Y-m-d H:i T')
        . "; `bench/run --only=deadlock` runs it). Every number comes from this run.\n\n"
        . "- machine: $NPROC CPUs (" . trim($sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")) . "), load average before the run: $load\n"
        . "- PHP " . PHP_VERSION . ", phpredis " . phpversion('redis') . ", distlock " . phpversion('distlock') . "\n"
        . "- Redis " . ($m[1] ?? '?') . " on 127.0.0.1 (`--save '' --appendonly no`), loopback TCP"
        . (isset($opt['latency-us']) ? ", distlock and the PINGs through a proxy adding {$opt['latency-us']} µs each way" : '')
        . $PIN_NOTE . "\n"
        . "- parameters: " . json_encode($CFG) . "\n";
};
$out = [$header()];

// ---- 1. registration ---------------------------------------------------------

/**
 * One lock(X) call that gives up after its wait of $w µs: [µs, registrations].
 * A DeadlockException here is a failure of the setup (nothing waits on us).
 */
$oneCall = function (\DistLock $d, float $w): array {
    $c0 = $d->stats()['contended'];
    $t0 = hrtime(true);
    try {
        $d->lock('x', 10, $w / 1e6);
        throw new \RuntimeException('lock(X) was granted: X is not held');
    } catch (\DistLock\DeadlockException $e) {
        throw new \RuntimeException('unexpected DeadlockException: ' . $e->getMessage());
    } catch (\DistLock\LockTimeoutException) {
    }
    $us = (hrtime(true) - $t0) / 1e3;
    return [$us, $d->stats()['contended'] - $c0 - 1];
};
/** W tuning: a call that gave up before registering waits longer next time; one that registered twice, less. */
$tune = function (float &$w, int $regs): void {
    if ($regs < 1) $w *= 1.08;
    elseif ($regs > 1) $w *= 0.93;
    $w = max(2.0, min($w, 200000.0));
};
// W's start: a little more than one SET round trip (tryLock(X) fails with one)
$setRt = [];
for ($i = 0; $i < 50; $i++) {
    $t0 = hrtime(true);
    $off->tryLock('x', 10);
    $setRt[] = (hrtime(true) - $t0) / 1e3;
}
$W = ['on' => 1.5 * median($setRt), 'off' => 1.5 * median($setRt)];
$inst = ['on' => $on, 'off' => $off];

// Warm: the scripts cached, W near its band; then distlock's own EVALSHAs, from the slow log.
$refresh();
for ($i = 0; $i < 200; $i++) {
    foreach (['on', 'off'] as $c) {
        [, $regs] = $oneCall($inst[$c], $W[$c]);
        $tune($W[$c], $regs);
    }
}
$captured = null;
for ($try = 0; $try < 200 && $captured === null; $try++) {
    $stats->config('SET', 'slowlog-log-slower-than', '0');
    $stats->slowlog('reset');
    [, $regs] = $oneCall($on, $W['on']);
    $log = $stats->slowlog('get', -1);
    $stats->config('SET', 'slowlog-log-slower-than', '-1');
    $tune($W['on'], $regs);
    if ($regs !== 1) continue;
    $acq = $chk = $cancel = null;
    foreach (array_reverse($log) as $e) {
        $args = array_map('strval', $e[3]);
        if (strtoupper($args[0] ?? '') !== 'EVALSHA') continue;
        $joined = implode(' ', $args);
        if (str_contains($joined, ':waitfor:')) $chk = $args;
        elseif (in_array("$K{{$K}}:wake", $args, true)) $cancel = $args;
        elseif (in_array($Q, $args, true)) $acq = $args;
    }
    if ($acq && $chk) $captured = ['acquire' => $acq, 'check' => $chk, 'cancel' => $cancel];
}
if ($captured === null) {
    fwrite(STDERR, "deadlock.php: could not capture distlock's registration and check from the slow log\n");
    $cleanup();
    exit(1);
}
// The token of the captured registration: ARGV[1] of both (after EVALSHA sha numkeys keys...).
$tokIdx = 3 + (int) $captured['acquire'][2];
$capTok = $captured['acquire'][$tokIdx];
$withTok = fn (array $args, string $tok): array => array_map(fn ($a) => $a === $capTok ? $tok : $a, $args);
$checkBytes = strlen(resp_encode(...$captured['check']));
$acqBytes = strlen(resp_encode(...$captured['acquire']));

// The server-only cells: distlock's EVALSHAs by a bare socket, then a plain ZREM.
$raw = stream_socket_client("tcp://$HOST:$PORT", $errno, $errstr, 5.0);
stream_set_read_buffer($raw, 0);
$srvBatch = function (bool $check, int $n) use ($raw, $captured, $withTok, $Q): void {
    for ($i = 0; $i < $n; $i++) {
        $tok = bin2hex(random_bytes(16));
        $w = resp_encode(...$withTok($captured['acquire'], $tok));
        if ($check) $w .= resp_encode(...$withTok($captured['check'], $tok));
        fwrite($raw, $w);
        $r = resp_read($raw);
        if (!is_array($r) || $r[0] !== 0) throw new \RuntimeException('registration: ' . json_encode($r));
        if ($check) {
            $c = resp_read($raw);
            if (!is_array($c) || $c[0] !== 1) throw new \RuntimeException('check: ' . json_encode($c));
        }
        fwrite($raw, resp_encode('ZREM', $Q, $tok));
        resp_read($raw);
    }
};
$srvBatch(true, 20);

$cells1 = ['on', 'off', 'srv-on', 'srv-off'];
$S1 = [];
for ($round = 0; $round <= $CFG['rounds']; $round++) {
    progress("registration: round $round/{$CFG['rounds']}" . ($round === 0 ? ' (warm-up, discarded)' : ''));
    foreach (rotate($cells1, $round) as $cell) {
        $refresh();
        gc_collect_cycles();
        reset_stats($stats);
        $lat = [];
        $n1 = $regsTot = 0;
        if ($cell === 'srv-on' || $cell === 'srv-off') {
            $srvBatch($cell === 'srv-on', $CFG['calls']);
            $regsTot = $CFG['calls'];
        } else {
            for ($i = 0; $i < $CFG['calls']; $i++) {
                [$us, $regs] = $oneCall($inst[$cell], $W[$cell]);
                $tune($W[$cell], $regs);
                $regsTot += max(0, $regs);
                if ($regs === 1) {
                    $lat[] = $us;
                    $n1++;
                }
            }
        }
        $w = window($stats);
        $liveAfter = $live();
        if ($round === 0) continue;
        $zadd = calls_of($w, 'zadd');
        $S1[$cell]['zadd'][] = $zadd;
        $S1[$cell]['regs'][] = $regsTot;
        $S1[$cell]['live'][] = $liveAfter;
        $S1[$cell]['upc'][] = calls_of($w, 'evalsha') ? usec_of($w, 'evalsha') / calls_of($w, 'evalsha') : NAN;
        $S1[$cell]['per_reg'][] = $regsTot ? usec_of($w, 'evalsha') / $regsTot : NAN;
        $S1[$cell]['calls_per_reg'][] = $regsTot ? calls_of($w, 'evalsha') / $regsTot : NAN;
        if ($lat) {
            $S1[$cell]['us'][] = median($lat);
            $S1[$cell]['one'][] = $n1 / $CFG['calls'];
            $S1[$cell]['w'][] = $W[$cell];
        }
    }
}

// ---- 3. the uncontended cycle (before section 2, which changes what this process holds) ----

$ping = redis_connect($DHOST, $DPORT, 'bench-ping');
$cyc = [
    'try, on'   => fn () => $on->tryLock('ut-1', 5)->release(),     // names of one length: the same bytes on and off
    'try, off'  => fn () => $off->tryLock('ut-0', 5)->release(),
    'lock, on'  => fn () => $on->lock('ul-1', 5, 5)->release(),
    'lock, off' => fn () => $off->lock('ul-0', 5, 5)->release(),
    'floor: 2 × PING' => function () use ($ping) { $ping->ping(); $ping->ping(); },
];
foreach ($cyc as $f) for ($i = 0; $i < 200; $i++) $f();
$S3 = [];
for ($round = 0; $round <= $CFG['rounds']; $round++) {
    progress("uncontended: round $round/{$CFG['rounds']}" . ($round === 0 ? ' (warm-up, discarded)' : ''));
    foreach (rotate(array_keys($cyc), $round) as $cell) {
        $f = $cyc[$cell];
        gc_collect_cycles();
        reset_stats($stats);
        $t0 = hrtime(true);
        for ($i = 0; $i < $CFG['cycles']; $i++) $f();
        $t1 = hrtime(true);
        $w = window($stats);
        if ($round === 0) continue;
        $S3[$cell]['us'][] = ($t1 - $t0) / 1e3 / $CFG['cycles'];
        $S3[$cell]['in'][] = $w['in'] / $CFG['cycles'];
        $S3[$cell]['reads'][] = $w['reads'] / $CFG['cycles'];
        $S3[$cell]['evalsha'][] = calls_of($w, 'evalsha') / $CFG['cycles'];
    }
}

// ---- 2. a 2-cycle ----------------------------------------------------------

$H->release();                 // this process now holds N2 alone
$N2 = $on->lock('n2', 3600);
fwrite($aSock, 'G');           // the child (holding N1) now waits for N2
$KN2 = $PREFIX . 'n2';
for ($i = 0; $i < 500 && (int) $stats->zCard("$KN2{{$KN2}}:waiters") < 1; $i++) usleep(10000);
usleep(50000);                 // its check ran behind its registration: its wait record is out
$detect = function (\DistLock $d, float $wait) {
    try {
        $d->lock('n1', 10, $wait);
        throw new \RuntimeException('lock(N1) was granted');
    } catch (\DistLock\DeadlockException $e) {
        return $e->getMessage();
    } catch (\DistLock\LockTimeoutException) {
        return null;   // not seen as a cycle (the other side was between two registrations)
    }
};
$example = null;
for ($i = 0; $i < 20; $i++) $example = $detect($on, 0.002) ?? $example;
$pings3 = function () use ($ping) { $ping->ping(); $ping->ping(); $ping->ping(); };
for ($i = 0; $i < 200; $i++) $pings3();
$S2 = [];
$missed = 0;
for ($round = 0; $round <= $CFG['rounds']; $round++) {
    progress("2-cycle: round $round/{$CFG['rounds']}" . ($round === 0 ? ' (warm-up, discarded)' : ''));
    foreach (rotate(['detect', 'floor'], $round) as $cell) {
        gc_collect_cycles();
        reset_stats($stats);
        $lat = [];
        $n = $CFG['detections'];
        for ($i = 0; $i < $n; $i++) {
            $t0 = hrtime(true);
            if ($cell === 'detect') {
                $msg = $detect($on, 0.002);
                if ($msg === null) {
                    $missed++;
                    continue;
                }
            } else {
                $pings3();
            }
            $lat[] = (hrtime(true) - $t0) / 1e3;
        }
        $w = window($stats);
        if ($round === 0) continue;
        $S2[$cell]['us'][] = median($lat);
        $S2[$cell]['reads'][] = $w['reads'] / $n;
        $S2[$cell]['in'][] = $w['in'] / $n;
    }
}
// the same call without detection waits out its wait (a few, 50 ms)
$offWait = [];
for ($i = 0; $i < 3; $i++) {
    $t0 = hrtime(true);
    try {
        $off->lock('n1', 10, 0.05);
    } catch (\DistLock\LockTimeoutException) {
    }
    $offWait[] = (hrtime(true) - $t0) / 1e3;
}
stream_set_blocking($aSock, false);
$aSays = (string) fread($aSock, 65536);
$N2->release();

$stats->config('SET', 'slowlog-log-slower-than', (string) $slowlogWas);
$stats->config('SET', 'slowlog-max-len', (string) $slowlogLenWas);
fclose($raw);
unset($on, $off, $N2);
$cleanup();

// ---- report ------------------------------------------------------------------

$f1 = fn (string $c, string $k, int $d = 1) => isset($S1[$c][$k]) ? ms_fmt($S1[$c][$k], $d) : '-';
$r1 = fn (string $k, string $a, string $b, int $d = 3) => isset($S1[$a][$k], $S1[$b][$k]) ? ms_fmt(ratios($S1[$a][$k], $S1[$b][$k]), $d) : '-';
$liveMin = min(array_merge(...array_map(fn ($c) => $S1[$c]['live'], $cells1)));
$o = "\n## 1. A registration, with and without the check\n\n"
    . "X held by another process, {$CFG['queue']} waiters registered on it (their entries live: at least $liveMin "
    . "after every batch); this process holds one other lease and calls `lock(X, 10, W)`, which sends its `SET`, "
    . "registers by script (the check written behind it when on), finds the wait spent and cancels: 3 round trips. "
    . "W is tuned as the cells run so that most calls register exactly once; the µs are those calls' "
    . "(share of such calls, and the last W, in the table). {$CFG['calls']} calls a cell a round, "
    . "{$CFG['rounds']} rounds. \"server only\": distlock's own EVALSHAs, registration alone or with the check "
    . "behind it in one write, from a bare socket, each followed by a `ZREM`; `CONFIG RESETSTAT` before each "
    . "batch, `INFO commandstats` after.\n\n"
    . table(['', 'detection on', 'detection off', 'on / off'], [
        ['client: `lock()` that registers once, µs (SET, registration, cancel)', $f1('on', 'us'), $f1('off', 'us'), $r1('us', 'on', 'off')],
        ['calls that registered once', $f1('on', 'one', 2), $f1('off', 'one', 2), ''],
        ['W at the end of the batch, µs', $f1('on', 'w', 0), $f1('off', 'w', 0), ''],
        ['client cells: evalsha calls per registration (registration, [check,] cancel)', $f1('on', 'calls_per_reg', 2), $f1('off', 'calls_per_reg', 2), ''],
        ['client cells: evalsha `usec_per_call`', $f1('on', 'upc', 2), $f1('off', 'upc', 2), $r1('upc', 'on', 'off')],
        ['client cells: evalsha µs per registration (its cancel included)', $f1('on', 'per_reg', 2), $f1('off', 'per_reg', 2), $r1('per_reg', 'on', 'off')],
        ['server only: evalsha `usec_per_call`', $f1('srv-on', 'upc', 2), $f1('srv-off', 'upc', 2), $r1('upc', 'srv-on', 'srv-off')],
        ['server only: evalsha µs per registration', $f1('srv-on', 'per_reg', 2), $f1('srv-off', 'per_reg', 2), $r1('per_reg', 'srv-on', 'srv-off')],
    ]);
$cOn = median($S1['on']['us']);
$cOff = median($S1['off']['us']);
$sOn = median($S1['srv-on']['per_reg']);
$sOff = median($S1['srv-off']['per_reg']);
// EVALSHA sha 3 K R L, then ARGV token stem window offset label kind limit permits nx, nx triples, then (stem, token) per hold
$holds = intdiv(count($captured['check']) - 15 - 3 * (int) $captured['check'][14], 2);
// the same check with the default prefix "lock:" (and the same names): its keys shorter, ARGV[4] (the prefix's length) "5"
$dflt = array_map(fn ($a) => str_replace($PREFIX, 'lock:', $a), $captured['check']);
$dflt[3 + (int) $captured['check'][2] + 3] = '5';
$o .= "\nWith the check, a `lock()` that registers once takes " . fmt($cOn - $cOff, 1) . " µs more (client). "
    . "The check's server time, from the server-only cells: " . fmt($sOn - $sOff, 2) . " µs a registration, "
    . "beside the registration's " . fmt($sOff, 2) . " µs. On the wire (`EVALSHA` form, as captured from distlock "
    . "for a waiter holding $holds lease" . ($holds === 1 ? '' : 's') . "): the check is **$checkBytes bytes**, "
    . "the registration it follows $acqBytes (with the default prefix `lock:` and the same names: "
    . strlen(resp_encode(...$dflt)) . " bytes). Its arguments (lengths): "
    . implode(', ', array_map(fn ($a) => (strlen($a) > 24 ? '`' . substr($a, 0, 21) . '...`' : '`' . $a . '`') . ' (' . strlen($a) . ')', $captured['check'])) . ".\n";

$f3 = fn (string $c, string $k, int $d = 1) => ms_fmt($S3[$c][$k], $d);
$r3 = fn (string $a, string $b) => ms_fmt(ratios($S3[$a]['us'], $S3[$b]['us']), 3);
$o3 = "\n## 3. The uncontended cycle, holding another lease\n\n"
    . "{$CFG['cycles']} cycles a cell a round, {$CFG['rounds']} rounds; this process holds one other lease throughout. "
    . "Only a wait carries the check: these must be equal within noise, and send the same bytes.\n\n"
    . table(['cycle', 'µs', 'ratio on / off', 'bytes in / cycle', 'round trips / cycle', 'evalsha / cycle'], [
        ['`tryLock()` + `release()`, on', $f3('try, on', 'us'), $r3('try, on', 'try, off'), $f3('try, on', 'in'), $f3('try, on', 'reads', 2), $f3('try, on', 'evalsha', 2)],
        ['`tryLock()` + `release()`, off', $f3('try, off', 'us'), '', $f3('try, off', 'in'), $f3('try, off', 'reads', 2), $f3('try, off', 'evalsha', 2)],
        ['`lock()` + `release()`, on', $f3('lock, on', 'us'), $r3('lock, on', 'lock, off'), $f3('lock, on', 'in'), $f3('lock, on', 'reads', 2), $f3('lock, on', 'evalsha', 2)],
        ['`lock()` + `release()`, off', $f3('lock, off', 'us'), '', $f3('lock, off', 'in'), $f3('lock, off', 'reads', 2), $f3('lock, off', 'evalsha', 2)],
        ['floor: 2 × `PING` (phpredis)', $f3('floor: 2 × PING', 'us'), '', $f3('floor: 2 × PING', 'in'), $f3('floor: 2 × PING', 'reads', 2), ''],
    ]);

$f2 = fn (string $c, string $k, int $d = 1) => isset($S2[$c][$k]) ? ms_fmt($S2[$c][$k], $d) : '-';
$o2 = "\n## 2. A 2-cycle: the victim's time to `DeadlockException`\n\n"
    . "A child holds N1 and waits in `lock(N2)`; this process holds N2 and calls `lock(N1, 10, 0.002)`: its "
    . "registration closes the cycle, and the check behind it says so in the same round trip; the wait is "
    . "cancelled and `DeadlockException` thrown. {$CFG['detections']} calls a round, {$CFG['rounds']} rounds; "
    . "calls that found no cycle (the child between two registrations): $missed"
    . ($aSays !== '' ? "; the child's own reports: " . json_encode($aSays) : '') . ".\n\n"
    . table(['', 'µs (median of the round\'s calls)', 'round trips / call', 'bytes in / call'], [
        ['`lock(N1)` to `DeadlockException`', $f2('detect', 'us'), $f2('detect', 'reads', 2), $f2('detect', 'in', 0)],
        ['3 × `PING` (phpredis)', $f2('floor', 'us'), $f2('floor', 'reads', 2), $f2('floor', 'in', 0)],
        ['ratio', isset($S2['detect']) ? ms_fmt(ratios($S2['detect']['us'], $S2['floor']['us']), 3) : '-', '', ''],
    ])
    . "\nThe same call with `'deadlock_detection' => false` and a 50 ms wait: "
    . implode(', ', array_map(fn ($x) => fmt($x / 1000, 1) . ' ms', $offWait)) . " (`LockTimeoutException`, its wait waited out).\n"
    . ($example !== null ? "\nThe message: `" . preg_replace('/pid \d+ on [^\s,]+/', 'pid N on HOST', preg_replace('/\(pid \d+\)/', '(pid M)', $example)) . "`\n" : '');
$out[] = $o . $o2 . $o3;
echo implode('', $out);
progress('done');

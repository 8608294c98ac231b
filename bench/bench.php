<?php
/*
 * distlock benchmark harness (issue 4). Run through bench/run, which builds the
 * extension, starts a throwaway redis-server and loads both extensions:
 *
 *   php -d extension=/abs/modules/distlock.so bench/bench.php --redis=127.0.0.1:PORT [--quick]
 *
 * Markdown results go to stdout, progress to stderr. See bench/README.md.
 */
declare(strict_types=1);

namespace Bench;

require __DIR__ . '/lib/Adapter.php';
require __DIR__ . '/lib/ServerStats.php';
require __DIR__ . '/lib/util.php';

errors_are_exceptions();
ini_set('memory_limit', '1G');

// ---- options -------------------------------------------------------------

$opt = getopt('', ['redis:', 'quick', 'rounds:', 'cycles:', 'workers:', 'sections:', 'hold-us:', 'latency-us:',
    'contended-rounds:', 'handovers:', 'only:', 'help']);
if (isset($opt['help']) || !isset($opt['redis'])) {
    fwrite(STDERR, "usage: bench.php --redis=HOST:PORT [--quick] [--rounds=N] [--cycles=N] [--workers=P] [--sections=M]\n"
        . "       [--hold-us=H] [--contended-rounds=N] [--handovers=N] [--only=uncontended,persistent,contended,handover,wait,deadline]\n"
        . "       [--latency-us=N]  (through a proxy adding N µs each way: a Redis ~2N µs of round trip away)\n");
    exit(isset($opt['help']) ? 0 : 2);
}
[$HOST, $PORT] = explode(':', (string) $opt['redis']) + [1 => '6379'];
$PORT = (int) $PORT;
$STATS_PORT = $PORT;   // server statistics are read directly, never through the delay proxy
// --latency-us=N: every implementation talks to Redis through a proxy that
// delays each direction by N µs (a Redis about 2N µs of round trip away).
if (isset($opt['latency-us'])) {
    require __DIR__ . '/lib/DelayProxy.php';
    $PROXY = new DelayProxy($HOST, $PORT, (int) $opt['latency-us']);
    [$HOST, $PORT] = ['127.0.0.1', $PROXY->port];
}
$URI = "redis://$HOST:$PORT";
$QUICK = isset($opt['quick']);

$CFG = [
    'rounds'           => (int) ($opt['rounds'] ?? ($QUICK ? 5 : 21)),      // measured rounds (+1 warm-up, discarded)
    'cycles'           => (int) ($opt['cycles'] ?? ($QUICK ? 300 : 1000)),  // acquire+release cycles per batch
    'fresh_cycles'     => $QUICK ? 100 : 300,                               // "requests" per batch (new client each)
    'count_cycles'     => 100,                                              // cycles of the request-counting pass
    'workers'          => (int) ($opt['workers'] ?? ($QUICK ? 4 : 8)),
    'sections'         => (int) ($opt['sections'] ?? ($QUICK ? 5 : 10)),
    'hold_us'          => (int) ($opt['hold-us'] ?? ($QUICK ? 10000 : 20000)),
    'contended_rounds' => (int) ($opt['contended-rounds'] ?? ($QUICK ? 1 : 5)),
    'handovers'        => (int) ($opt['handovers'] ?? ($QUICK ? 10 : 30)),
    'handover_rounds'  => $QUICK ? 2 : 3,
];
$ONLY = isset($opt['only']) ? array_flip(explode(',', (string) $opt['only'])) : null;
$want = fn (string $s): bool => $ONLY === null || isset($ONLY[$s]);

// ---- implementations -----------------------------------------------------

const NA_OPTION = 'n/a (option not supported by this build)';

/** id => [label, factory(): Adapter, include path that must resolve (or null)] */
$IMPLS = [
    'floor'         => ['floor: 2 × PING (phpredis)', fn () => new FloorAdapter($HOST, $PORT), null],
    'native'        => ['commands alone: SET NX PX + DELIFEQ (phpredis)', fn () => new NativeCommandsAdapter($HOST, $PORT), null],
    'distlock'      => ['distlock `lock()`', fn () => new DistLockAdapter($URI, [], 'distlock'), null],
    'distlock-try'  => ['distlock `tryLock()`', fn () => new DistLockAdapter($URI, [], 'distlock-try', 'try'), null],
    'distlock-scoped' => ['distlock scoped (`tryLock()`, destruction)', fn () => new DistLockAdapter($URI, [], 'distlock-scoped', 'scoped'), null],
    'distlock-sync' => ['distlock `synchronized()`, empty callback', fn () => new DistLockAdapter($URI, [], 'distlock-sync', 'sync'), null],
    'distlock-fair' => ['distlock `lock()`, fair', fn () => new DistLockAdapter($URI, ['fair' => true], 'distlock-fair'), null],
    'phpredis'      => ['phpredis hand-written', fn () => new PhpRedisAdapter($HOST, $PORT), null],
    'laravel'       => ['Laravel `PhpRedisLock`', fn () => new LaravelAdapter($HOST, $PORT), 'Illuminate/Cache/autoload.php'],
    'symfony'       => ['symfony/lock `RedisStore`', fn () => new SymfonyAdapter($HOST, $PORT), 'Symfony/Component/Lock/autoload.php'],
    'malkusch'      => ['php-lock `PHPRedisMutex`', fn () => new MalkuschAdapter($HOST, $PORT), 'Malkusch/Lock/autoload.php'],
];
foreach (['DistLockAdapter', 'PhpRedisAdapter', 'FloorAdapter', 'NativeCommandsAdapter'] as $f) {
    require __DIR__ . "/lib/$f.php";
}
$UNAVAILABLE = []; // id => reason
foreach (['laravel' => 'LaravelAdapter', 'symfony' => 'SymfonyAdapter', 'malkusch' => 'MalkuschAdapter'] as $id => $f) {
    if (stream_resolve_include_path($IMPLS[$id][2]) === false) {
        $UNAVAILABLE[$id] = 'n/a (package not installed)';
    } else {
        require __DIR__ . "/lib/$f.php";
    }
}
if (!extension_loaded('distlock')) {
    fwrite(STDERR, "bench.php: the distlock extension is not loaded (use bench/run)\n");
    exit(2);
}
if (!extension_loaded('redis')) {
    fwrite(STDERR, "bench.php: the redis (phpredis) extension is not loaded\n");
    exit(2);
}

/** Builds an adapter, or returns the reason it cannot run. */
function make(string $id): Adapter|string
{
    global $IMPLS, $UNAVAILABLE;
    if (isset($UNAVAILABLE[$id])) {
        return $UNAVAILABLE[$id];
    }
    try {
        return ($IMPLS[$id][1])();
    } catch (NotSupported) {
        return NA_OPTION;
    } catch (ServerLacks $e) {
        return 'n/a (' . $e->getMessage() . ')';
    }
}

function label(string $id): string
{
    global $IMPLS;
    return $IMPLS[$id][0];
}

$stats = new ServerStats($HOST, $STATS_PORT);
$out = [];   // markdown chunks
$R = [];     // results for the targets section

// ---- header --------------------------------------------------------------

$sh = fn (string $cmd): string => trim((string) shell_exec($cmd . ' 2>/dev/null'));
$phpv = strtok(trim((string) shell_exec(escapeshellarg(PHP_BINARY) . ' -n -v')), "\n");
$redisv = $sh('redis-server --version');
$peers = $sh("dpkg-query -W -f='\${Package} \${Version}, ' php-illuminate-cache php-symfony-lock php-malkusch-lock");
$cpu = $sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2");
$load = implode(' ', array_map(fn ($x) => number_format($x, 2), sys_getloadavg()));
$srvInfo = (string) $stats->redis()->rawCommand('INFO', 'server');
preg_match('/redis_version:(\S+)/', $srvInfo, $m1);
$args = implode(' ', array_slice($argv, 1));
$out[] = "# distlock benchmark results\n\n"
    . "Generated by `bench/run` (" . date('Y-m-d H:i T') . ", mode: " . ($QUICK ? '`--quick`' : 'default') . "). "
    . "Every number comes from this run; rerun `bench/run` to reproduce.\n\n"
    . "- machine: " . $sh('nproc') . " CPUs (" . trim($cpu) . "), load average before the run: $load\n"
    . "- PHP: $phpv\n"
    . "- Redis: $redisv (one throwaway server on 127.0.0.1:$STATS_PORT, `--save '' --appendonly no`, loopback TCP"
    . (isset($PROXY) ? "; reached through a proxy that delays each direction by {$opt['latency-us']} µs" : '') . ")\n"
    . "- phpredis " . phpversion('redis') . ", distlock " . phpversion('distlock') . "; peers: " . rtrim($peers, ', ') . "\n"
    . "- parameters: " . json_encode($CFG) . "\n";

// ---- 1. uncontended ------------------------------------------------------

/**
 * Runs the cyclers interleaved: one warm-up round (discarded) + $rounds measured
 * rounds, the order rotated per round; per batch wall, client CPU, server
 * commands (incl. Lua-internal) and reads. Then a counting pass with the slow
 * log on for client requests per cycle. Returns medians per id.
 * @param array<string, \Closure> $cyclers
 */
function interleave(array $cyclers, int $rounds, int $n, int $countN, ServerStats $stats, string $what): array
{
    $ids = array_keys($cyclers);
    $samples = [];
    for ($round = 0; $round <= $rounds; $round++) {
        progress("$what: round $round/$rounds" . ($round === 0 ? ' (warm-up, discarded)' : ''));
        foreach (rotate($ids, $round) as $id) {
            $cycle = $cyclers[$id];
            gc_collect_cycles();
            $s0 = $stats->snapshot();
            $c0 = cpu_us();
            $t0 = hrtime(true);
            for ($i = 0; $i < $n; $i++) {
                $cycle();
            }
            $t1 = hrtime(true);
            $c1 = cpu_us();
            $s1 = $stats->snapshot();
            if ($round > 0) {
                $samples[$id]['wall'][] = ($t1 - $t0) / 1e3 / $n;
                $samples[$id]['cpu'][] = ($c1 - $c0) / $n;
                $samples[$id]['calls'][] = ($s1['calls'] - $s0['calls']) / $n;
                $samples[$id]['reads'][] = ($s1['reads'] - $s0['reads'] - 1) / $n; // minus the second INFO's own read
            }
        }
    }
    // Counting pass (not timed): every command logged, attributed to its client.
    $stats->slowlog(true);
    $req = [];
    foreach ($ids as $id) {
        $stats->slowlogReset();
        for ($i = 0; $i < $countN; $i++) {
            ($cyclers[$id])();
        }
        $c = $stats->clientRequests();
        $req[$id] = ['per' => $c['total'] / $countN, 'by' => array_map(fn ($v) => $v / $countN, $c['by'])];
    }
    $stats->slowlog(false);
    $res = [];
    foreach ($ids as $id) {
        $res[$id] = [
            'wall' => median($samples[$id]['wall']), 'cpu' => median($samples[$id]['cpu']),
            'calls' => median($samples[$id]['calls']), 'reads' => median($samples[$id]['reads']),
            'req' => $req[$id]['per'], 'by' => $req[$id]['by'],
            'wall_min' => min($samples[$id]['wall']), 'wall_max' => max($samples[$id]['wall']),
        ];
    }
    return $res;
}

function by_str(array $by): string
{
    $p = [];
    foreach ($by as $cmd => $v) {
        $p[] = strtoupper($cmd) . ($v == 1 ? '' : '×' . fmt($v, $v == (int) $v ? 0 : 2));
    }
    return implode(' + ', $p);
}

if ($want('uncontended')) {
    $ids = ['floor', 'native', 'distlock', 'distlock-try', 'distlock-scoped', 'distlock-sync', 'distlock-fair', 'phpredis', 'laravel',
            'symfony', 'malkusch'];
    $cyclers = [];
    $na = [];
    foreach ($ids as $id) {
        $a = make($id);
        if (is_string($a)) {
            $na[$id] = $a;
            continue;
        }
        $a->warm();
        $name = "bench:u:$id";
        $cyclers[$id] = fn () => $a->run($name, 10.0, 5.0, null);
    }
    $res = interleave($cyclers, $CFG['rounds'], $CFG['cycles'], $CFG['count_cycles'], $stats, 'uncontended');
    $floor = $res['floor']['wall'];
    $rows = [];
    foreach ($ids as $id) {
        if (isset($na[$id])) {
            $rows[] = [label($id), $na[$id], '', '', '', '', '', ''];
            continue;
        }
        $r = $res[$id];
        $rows[] = [label($id), fmt($r['wall']), fmt($r['wall'] / $floor, 2) . '×', fmt($r['cpu']), fmt($r['req'], 2),
            fmt($r['reads'], 2), fmt($r['calls'], 2), by_str($r['by'])];
    }
    $R['uncontended'] = $res;
    $out[] = "## Uncontended acquire + release\n\n"
        . "One process, one connection per implementation, the same lock name cycled {$CFG['cycles']} times per batch; "
        . "{$CFG['rounds']} measured rounds (+1 warm-up round discarded), implementations interleaved in rotated order; medians of the per-batch means.\n\n"
        . table(['implementation', 'wall µs/cycle', '× floor', 'client CPU µs/cycle', 'requests/cycle', 'round trips/cycle',
            'server cmds/cycle (incl. Lua)', 'requests sent'], $rows);
}

// ---- 2. a request that creates a DistLock, locks and releases once -------

if ($want('persistent')) {
    $pIds = ['dl-fresh', 'dl-persistent', 'pr-fresh', 'pr-pconnect'];
    $labels = [
        'dl-fresh' => 'distlock, new connection per request',
        'dl-persistent' => "distlock, `'persistent' => true`",
        'pr-fresh' => 'phpredis hand-written, `connect()` per request',
        'pr-pconnect' => 'phpredis hand-written, `pconnect()`',
    ];
    $rel = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    $sha = sha1($rel);
    $prCycle = function (bool $persistent) use ($HOST, $PORT, $sha, $rel): void {
        $r = new \Redis();
        $persistent ? $r->pconnect($HOST, $PORT, 2.0) : $r->connect($HOST, $PORT, 2.0);
        $t = bin2hex(random_bytes(16));
        if ($r->set('bench:p:pr', $t, ['nx', 'px' => 10000])) {
            if ($r->evalSha($sha, ['bench:p:pr', $t], 1) === false) {
                $r->eval($rel, ['bench:p:pr', $t], 1);
            }
        }
        if (!$persistent) {
            $r->close();
        }
    };
    $cyclers = [
        'dl-fresh' => function () use ($URI): void {
            $dl = new \DistLock($URI);
            $l = $dl->tryLock('p:fresh', 10.0);
            $l?->release();
            unset($l, $dl);
        },
        'pr-fresh' => fn () => $prCycle(false),
        'pr-pconnect' => fn () => $prCycle(true),
    ];
    $na = [];
    try {
        DistLockAdapter::make($URI, ['persistent' => true]);
        $cyclers['dl-persistent'] = function () use ($URI): void {
            $dl = new \DistLock($URI, ['persistent' => true]);
            $l = $dl->tryLock('p:persistent', 10.0);
            $l?->release();
            unset($l, $dl);
        };
    } catch (NotSupported) {
        $na['dl-persistent'] = NA_OPTION;
    }
    (new \Redis())->pconnect($HOST, $PORT, 2.0); // open the pool before measuring
    $res = interleave($cyclers, $CFG['rounds'], $CFG['fresh_cycles'], $CFG['count_cycles'], $stats, 'per-request');
    $rows = [];
    $base = $res['dl-fresh']['wall'];
    foreach ($pIds as $id) {
        if (isset($na[$id])) {
            $rows[] = [$labels[$id], $na[$id], '', '', '', ''];
            continue;
        }
        $r = $res[$id];
        $rows[] = [$labels[$id], fmt($r['wall']), fmt($r['wall'] / $base, 2) . '×', fmt($r['cpu']), fmt($r['req'], 2), by_str($r['by'])];
    }
    $R['persistent'] = $res + $na;
    $out[] = "## One lock per request: fresh vs persistent connection\n\n"
        . "A \"request\" = `new DistLock(\$uri[, options])` + `tryLock()` + `release()` + `unset()` (for phpredis: new \\Redis, "
        . "connect/pconnect, SET NX PX, EVALSHA, close); {$CFG['fresh_cycles']} requests per batch, interleaved as above.\n\n"
        . table(['variant', 'wall µs/request', '× distlock fresh', 'client CPU µs/request', 'requests/request', 'requests sent'], $rows);
}

// ---- 3. contended --------------------------------------------------------

/**
 * P worker processes × M critical sections of H µs on one lock. Each worker:
 * acquire (wait ≤ 30 s), GET counter (own phpredis connection), usleep(H),
 * SET counter+1, release. Returns the raw numbers of one run.
 */
function contended_run(string $id, int $P, int $M, int $H, int $round, ServerStats $stats, string $host, int $port): array|string
{
    $probe = make($id);
    if (is_string($probe)) {
        return $probe;
    }
    unset($probe);
    $name = "bench:c:$id:$round";
    $ctrKey = "bench:counter:$id:$round";
    $stats->redis()->del($ctrKey);
    $dir = sys_get_temp_dir() . '/distlock-bench-' . getmypid();
    @mkdir($dir);
    [$readyR, $readyW] = pair();
    [$goR, $goW] = pair();
    $pids = [];
    for ($w = 0; $w < $P; $w++) {
        $pid = pcntl_fork();
        if ($pid === -1) {
            throw new \RuntimeException('fork failed');
        }
        if ($pid === 0) {
            try {
                $a = make($id);
                $a->warm();
                $ctr = redis_connect($host, $port, 'bench-counter');
                fwrite($readyW, 'r');
                read_exact($goR, 1, 120);
                $waits = [];
                $timeouts = 0;
                for ($m = 0; $m < $M; $m++) {
                    $t0 = hrtime(true);
                    $ok = $a->run($name, 10.0, 30.0, function () use (&$waits, $t0, $ctr, $ctrKey, $H): void {
                        $waits[] = (hrtime(true) - $t0) / 1e3;
                        $v = (int) $ctr->get($ctrKey);
                        usleep($H);
                        $ctr->set($ctrKey, (string) ($v + 1));
                    });
                    if (!$ok) {
                        $timeouts++;
                    }
                }
                file_put_contents("$dir/$w.json", json_encode(['waits' => $waits, 'timeouts' => $timeouts, 'end' => hrtime(true)]));
            } catch (\Throwable $e) {
                file_put_contents("$dir/$w.json", json_encode(['error' => get_class($e) . ': ' . $e->getMessage()]));
            }
            child_exit();
        }
        $pids[] = $pid;
    }
    if (read_exact($readyR, $P, 60) === null) {
        foreach ($pids as $pid) {
            posix_kill($pid, SIGKILL);
        }
        throw new \RuntimeException("contended $id: workers did not get ready");
    }
    $stats->slowlogReset();
    $t0 = hrtime(true);
    fwrite($goW, str_repeat('g', $P));
    foreach ($pids as $pid) {
        pcntl_waitpid($pid, $st);
    }
    $reqs = $stats->clientRequests(['bench-counter']);
    $waits = [];
    $timeouts = 0;
    $end = $t0;
    $errors = [];
    for ($w = 0; $w < $P; $w++) {
        $d = json_decode((string) @file_get_contents("$dir/$w.json"), true);
        @unlink("$dir/$w.json");
        if (!is_array($d) || isset($d['error'])) {
            $errors[] = $d['error'] ?? 'worker died';
            continue;
        }
        array_push($waits, ...$d['waits']);
        $timeouts += $d['timeouts'];
        $end = max($end, $d['end']);
    }
    @rmdir($dir);
    foreach ([$readyR, $readyW, $goR, $goW] as $s) {
        fclose($s);
    }
    $counter = (int) $stats->redis()->get($ctrKey);
    $acq = count($waits);
    return [
        'wall_us' => ($end - $t0) / 1e3, 'ideal_us' => $P * $M * $H, 'waits' => $waits, 'acq' => $acq,
        'timeouts' => $timeouts, 'lost' => $acq - $counter, 'req' => $reqs['total'], 'by' => $reqs['by'],
        'errors' => $errors,
    ];
}

if ($want('contended')) {
    [$P, $M, $H] = [$CFG['workers'], $CFG['sections'], $CFG['hold_us']];
    $ids = ['distlock', 'distlock-fair', 'phpredis', 'laravel', 'symfony', 'malkusch'];
    $runs = [];
    $stats->slowlog(true);
    for ($round = 0; $round < $CFG['contended_rounds']; $round++) {
        foreach (rotate($ids, $round) as $id) {
            if (isset($runs[$id]) && is_string($runs[$id])) {
                continue;
            }
            progress("contended: round " . ($round + 1) . "/{$CFG['contended_rounds']} $id");
            $r = contended_run($id, $P, $M, $H, $round, $stats, $HOST, $PORT);
            if (is_string($r)) {
                $runs[$id] = $r;
            } else {
                $runs[$id][] = $r;
            }
        }
    }
    $stats->slowlog(false);
    $rows = [];
    $fifo = ($P - 1) * $H;
    foreach ($ids as $id) {
        if (is_string($runs[$id])) {
            $rows[] = [label($id), $runs[$id], '', '', '', '', '', '', ''];
            continue;
        }
        $all = array_merge(...array_map(fn ($r) => $r['waits'], $runs[$id]));
        $ratio = median(array_map(fn ($r) => $r['wall_us'] / $r['ideal_us'], $runs[$id]));
        $wall = median(array_map(fn ($r) => $r['wall_us'], $runs[$id]));
        $lost = array_sum(array_map(fn ($r) => $r['lost'], $runs[$id]));
        $to = array_sum(array_map(fn ($r) => $r['timeouts'], $runs[$id]));
        $rpa = median(array_map(fn ($r) => $r['req'] / max(1, $r['acq']), $runs[$id]));
        $byAll = [];
        $acqAll = array_sum(array_map(fn ($r) => $r['acq'], $runs[$id]));
        foreach ($runs[$id] as $r) {
            foreach ($r['by'] as $cmd => $k) {
                $byAll[$cmd] = ($byAll[$cmd] ?? 0) + $k / max(1, $acqAll);
            }
        }
        $errs = array_merge(...array_map(fn ($r) => $r['errors'], $runs[$id]));
        $R['contended'][$id] = ['ratio' => $ratio, 'p50' => pct($all, 50), 'p99' => pct($all, 99), 'max' => max($all ?: [NAN]),
            'lost' => $lost, 'timeouts' => $to, 'rpa' => $rpa, 'errors' => $errs, 'fifo' => $fifo];
        $rows[] = [label($id), ms($wall), fmt($ratio, 2) . '×', ms(pct($all, 50)), ms(pct($all, 99)), ms(max($all ?: [NAN])),
            (string) $lost . ($to ? " ($to timeouts)" : '') . ($errs ? ' ERR: ' . $errs[0] : ''),
            fmt($rpa, 2) . ' (' . implode(', ', array_map(fn ($c, $v) => strtoupper($c) . ' ' . fmt($v, 2), array_keys($byAll), $byAll)) . ')',
            fmt(pct($all, 99) / $fifo, 2) . '×'];
    }
    $out[] = "## Contended: $P workers × $M critical sections of " . ms($H) . " ms on one lock\n\n"
        . "Each worker process (pcntl_fork, own connections) loops: acquire (wait ≤ 30 s, each library's own waiting), "
        . "GET a counter, usleep(H), SET counter+1, release. Ideal wall = P·M·H = " . ms($P * $M * $H) . " ms. "
        . "{$CFG['contended_rounds']} run(s) per implementation, interleaved; wall and requests are medians over runs, wait percentiles "
        . "are over all acquisitions of all runs pooled (nearest rank), lost updates are summed over runs. "
        . "Requests = lock commands only (counter GET/SET and Lua-internal calls excluded). FIFO bound = (P−1)·H = " . ms($fifo) . " ms.\n\n"
        . table(['implementation', 'wall ms', '× ideal', 'wait p50 ms', 'wait p99 ms', 'wait max ms', 'lost updates',
            'requests/acquisition', 'p99 × FIFO bound'], $rows);
}

// ---- 4. hand-over latency ------------------------------------------------

/**
 * The parent holds the lock; a waiter process blocks in acquire; after a hold
 * time the parent stamps hrtime() and releases; the waiter stamps hrtime() as
 * soon as its acquire returns. Latency = waiter stamp − release stamp.
 * @param list<int> $holds µs
 */
function handover_run(string $id, array $holds, int $round, string $host, int $port): array|string
{
    $holder = make($id);
    if (is_string($holder)) {
        return $holder;
    }
    $holder->warm();
    $name = "bench:h:$id:$round";
    [$goR, $goW] = pair();
    [$resR, $resW] = pair();
    $pid = pcntl_fork();
    if ($pid === 0) {
        try {
            $a = make($id);
            $a->warm();
            fwrite($resW, 'r');
            while (($g = read_exact($goR, 1, 120)) === 'g') {
                $tAcq = 0;
                $ok = $a->run($name, 10.0, 10.0, function () use (&$tAcq): void {
                    $tAcq = hrtime(true);
                });
                fwrite($resW, pack('q', $ok ? $tAcq : 0));
            }
        } catch (\Throwable $e) {
            fwrite(STDERR, "handover waiter $id: " . $e->getMessage() . "\n");
        }
        child_exit();
    }
    read_exact($resR, 1, 60);
    $lat = [];
    foreach ($holds as $hold) {
        $tRel = 0;
        $ok = $holder->run($name, 10.0, 10.0, function () use (&$tRel, $goW, $hold): void {
            fwrite($goW, 'g');
            usleep($hold);
            $tRel = hrtime(true);
        });
        $b = read_exact($resR, 8, 30);
        if (!$ok || $b === null) {
            break;
        }
        $tAcq = unpack('q', $b)[1];
        if ($tAcq > 0) {
            $lat[] = ($tAcq - $tRel) / 1e3;
        }
    }
    fwrite($goW, 'q');
    pcntl_waitpid($pid, $st);
    return $lat;
}

if ($want('handover')) {
    $ids = ['distlock', 'distlock-fair', 'phpredis', 'laravel', 'symfony', 'malkusch'];
    mt_srand(42);
    $per = (int) ceil($CFG['handovers'] / $CFG['handover_rounds']);
    $holdsByRound = [];
    for ($round = 0; $round < $CFG['handover_rounds']; $round++) {
        for ($k = 0; $k < $per; $k++) {
            $holdsByRound[$round][] = mt_rand(5000, 50000);
        }
    }
    $lat = [];
    for ($round = 0; $round < $CFG['handover_rounds']; $round++) {
        foreach (rotate($ids, $round) as $id) {
            if (isset($lat[$id]) && is_string($lat[$id])) {
                continue;
            }
            progress("hand-over: round " . ($round + 1) . "/{$CFG['handover_rounds']} $id");
            $r = handover_run($id, $holdsByRound[$round], $round, $HOST, $PORT);
            $lat[$id] = is_string($r) ? $r : array_merge($lat[$id] ?? [], $r);
        }
    }
    $rows = [];
    foreach ($ids as $id) {
        if (is_string($lat[$id])) {
            $rows[] = [label($id), $lat[$id], '', '', ''];
            continue;
        }
        $R['handover'][$id] = ['p50' => pct($lat[$id], 50), 'max' => max($lat[$id] ?: [NAN]), 'n' => count($lat[$id])];
        $rows[] = [label($id), ms(pct($lat[$id], 50)), ms(pct($lat[$id], 90)), ms(max($lat[$id] ?: [NAN])), (string) count($lat[$id])];
    }
    $out[] = "## Hand-over latency\n\n"
        . "Holder (parent) holds the lock for a random 5–50 ms (same seeded sequence for every implementation) while one waiter "
        . "process blocks in acquire; latency = waiter's `hrtime()` when its acquire returns − holder's `hrtime()` just before "
        . "it calls release (CLOCK_MONOTONIC, comparable across processes). Includes the release round trip.\n\n"
        . table(['implementation', 'p50 ms', 'p90 ms', 'max ms', 'hand-overs'], $rows);
}

// ---- 5. requests a waiter sends during a 2 s wait ------------------------

function wait2s_run(string $id, ServerStats $stats, string $host, int $port): array|string
{
    $holder = make($id);
    if (is_string($holder)) {
        return $holder;
    }
    $holder->warm();
    $name = "bench:w:$id";
    [$goR, $goW] = pair();
    [$resR, $resW] = pair();
    $pid = pcntl_fork();
    if ($pid === 0) {
        try {
            $a = make($id);
            $a->warm();
            fwrite($resW, 'r');
            read_exact($goR, 1, 60);
            $t0 = hrtime(true);
            $ok = $a->run($name, 10.0, 2.0, null);
            $line = json_encode(['ok' => $ok, 'waited' => (hrtime(true) - $t0) / 1e9]);
            fwrite($resW, str_pad($line, 100));
        } catch (\Throwable $e) {
            fwrite($resW, str_pad(json_encode(['error' => $e->getMessage()]), 100));
        }
        read_exact($goR, 1, 60); // stay idle until told to go (nothing is sent meanwhile)
        child_exit();
    }
    $result = null;
    $limited = $holder->hasWaitLimit();
    $holder->run($name, 10.0, 5.0, function () use (&$result, $stats, $goW, $resR, $pid, $limited): void {
        read_exact($resR, 1, 60);                 // waiter connected and warmed up
        $stats->slowlogReset();
        $tGo = hrtime(true);
        fwrite($goW, 'g');
        // A waiter with a wait limit gets until 2.6 s to give up by itself (its last
        // attempt lands at about 2.0 s); one without a limit is stopped at 2.0 s.
        $line = read_exact($resR, 100, $limited ? 2.6 : 2.0);
        if ($line === null) {
            posix_kill($pid, SIGKILL);
            $d = ['ok' => false, 'waited' => (hrtime(true) - $tGo) / 1e9, 'killed' => true, 'limited' => $limited];
        } else {
            $d = json_decode(trim($line), true);
        }
        $c = $stats->clientRequests();
        $d['req'] = $c['total'];
        $d['by'] = $c['by'];
        $result = $d;
        $left = 3.0 - (hrtime(true) - $tGo) / 1e9; // the holder holds for 3 s
        if ($left > 0) {
            usleep((int) ($left * 1e6));
        }
    });
    @fwrite($goW, 'q');
    pcntl_waitpid($pid, $st);
    return $result ?? 'holder failed';
}

if ($want('wait')) {
    $ids = ['distlock', 'distlock-fair', 'phpredis', 'laravel', 'symfony', 'malkusch'];
    $stats->slowlog(true);
    $rows = [];
    foreach ($ids as $id) {
        progress("2 s wait: $id");
        $r = wait2s_run($id, $stats, $HOST, $PORT);
        if (is_string($r)) {
            $rows[] = [label($id), $r, '', ''];
            continue;
        }
        $R['wait'][$id] = $r;
        $how = isset($r['error']) ? 'error: ' . $r['error']
            : (!empty($r['killed']) ? ($r['limited'] ? 'still waiting at 2.6 s: stopped' : 'still waiting at 2.0 s (no wait limit): stopped')
                : ($r['ok'] ? 'acquired (unexpected)' : 'gave up after ' . fmt($r['waited'], 2) . ' s'));
        $rows[] = [label($id), (string) $r['req'], by_str($r['by']), $how];
    }
    $stats->slowlog(false);
    $out[] = "## Requests a waiter sends during a 2 s wait\n\n"
        . "The holder holds the lock for 3 s; one waiter asks for it with a 2 s wait limit (symfony/lock has none: its waiter is "
        . "stopped at 2.0 s). Counted: every command the waiter's connection sent from the start of its wait until it gave up "
        . "(slow log attribution by client; holder and harness excluded).\n\n"
        . table(['implementation', 'requests', 'commands', 'outcome'], $rows);
}

// ---- 5b. deadline overshoot ----------------------------------------------

/**
 * Waits on a lock that another owner holds throughout, each of which must
 * give up: how long after its requested wait each one returns (µs). The
 * server is the throwaway one, with Redis's default timer (hz 10), which ends a
 * blocked BLPOP only at its next tick.
 * @return array{sub: list<float>, one: list<float>}|string
 */
function deadline_run(string $id, int $reps): array|string
{
    $holder = make($id);
    $waiter = make($id);
    if (is_string($holder)) {
        return $holder;
    }
    $holder->warm();
    $waiter->warm();
    $name = "bench:deadline:$id";
    $r = ['sub' => [], 'one' => []];
    // php-lock's lease is its wait + 1 s: the holder's outlasts every waiter's.
    $holder->run($name, 120.0, 119.0, function () use ($waiter, $name, $reps, &$r): void {
        foreach ([0.05, 0.15, 0.30, 1.0] as $wait) {
            for ($i = 0; $i < ($wait >= 1.0 ? max(1, intdiv($reps, 2)) : $reps); $i++) {
                $t0 = hrtime(true);
                if ($waiter->run($name, 10.0, $wait, null)) {
                    throw new \RuntimeException("$name: acquired a held lock");
                }
                $r[$wait >= 1.0 ? 'one' : 'sub'][] = (hrtime(true) - $t0) / 1e3 - $wait * 1e6;
            }
        }
    });
    return $r;
}

if ($want('deadline')) {
    $rows = [];
    foreach (['distlock', 'distlock-fair', 'phpredis', 'laravel', 'symfony', 'malkusch'] as $id) {
        progress("deadline: $id");
        $a = make($id);
        $r = is_string($a) ? $a : ($a->hasWaitLimit() && $id !== 'symfony' ? deadline_run($id, $QUICK ? 4 : 10)
            : 'n/a (no wait limit)');
        if (is_string($r)) {
            $rows[] = [label($id), $r, '', '', ''];
            continue;
        }
        $R['deadline'][$id] = $r;
        $rows[] = [label($id), ms(pct($r['sub'], 50)), ms(pct($r['sub'], 99)), ms(pct($r['one'], 50)), ms(pct($r['one'], 99))];
    }
    $out[] = "## Deadline overshoot

"
        . "A waiter asks for a lock held throughout, with waits of 0.05, 0.15 and 0.30 s (" . ($QUICK ? 4 : 10) . " each) and of 1 s ("
        . ($QUICK ? 2 : 5) . "); the columns are how long after the requested wait it returned (ms). The server runs Redis's "
        . "default timer (hz 10), which ends a blocked BLPOP only at its next tick; distlock enforces the deadline at the "
        . "client. Laravel and php-lock take whole seconds, so their sub-second waits last a second.\n\n"
        . table(['implementation', 'sub-second p50 ms', 'sub-second p99 ms', '1 s p50 ms', '1 s p99 ms'], $rows);
}

// ---- 6. targets ----------------------------------------------------------

$T = [];
$pf = fn (?bool $ok): string => $ok === null ? 'n/a' : ($ok ? '**PASS**' : '**FAIL**');
if (isset($R['uncontended'])) {
    $u = $R['uncontended'];
    $fl = $u['floor']['wall'];
    $T[] = ['uncontended cycle ≤ 1.05 × two-round-trip floor', 'distlock `lock()` ' . fmt($u['distlock']['wall'] / $fl, 2)
        . '× (' . fmt($u['distlock']['wall']) . ' vs ' . fmt($fl) . ' µs); `tryLock()` ' . fmt($u['distlock-try']['wall'] / $fl, 2) . '×',
        $pf($u['distlock']['wall'] <= 1.05 * $fl)];
    $T[] = ['uncontended cycle faster than the hand-written phpredis lock', 'distlock `lock()` ' . fmt($u['distlock']['wall'])
        . ' µs vs phpredis ' . fmt($u['phpredis']['wall']) . ' µs', $pf($u['distlock']['wall'] < $u['phpredis']['wall'])];
    // issue 11
    foreach (['distlock-scoped' => 'scoped cycle', 'distlock-sync' => '`synchronized()`, empty callback'] as $id => $what) {
        $T[] = ["$what ≤ 0.7 × two-PING floor", fmt($u[$id]['wall']) . ' µs = ' . fmt($u[$id]['wall'] / $fl, 2) . '× floor',
            $pf($u[$id]['wall'] <= 0.7 * $fl)];
    }
    $T[] = ['`lock()` + `release()` no slower than the hand-written phpredis lock', fmt($u['distlock']['wall'] / $u['phpredis']['wall'], 2)
        . '× phpredis', $pf($u['distlock']['wall'] <= $u['phpredis']['wall'])];
}
if (isset($R['contended'])) {
    $c = $R['contended']['distlock'] ?? null;
    if ($c) {
        $T[] = ["contended ({$CFG['workers']}×{$CFG['sections']}×" . ms($CFG['hold_us']) . " ms): wall ≤ 1.05 × ideal", 'distlock ' . fmt($c['ratio'], 2) . '×', $pf($c['ratio'] <= 1.05)];
        $T[] = ['contended: 0 lost updates', 'distlock ' . $c['lost'], $pf($c['lost'] === 0 && $c['timeouts'] === 0 && !$c['errors'])];
    }
    $f = $R['contended']['distlock-fair'] ?? null;
    $T[] = ['fair mode: p99 wait ≤ 1.2 × FIFO bound ((P−1)·H = ' . ms(($CFG['workers'] - 1) * $CFG['hold_us']) . ' ms)',
        $f ? 'distlock fair p99 ' . ms($f['p99']) . ' ms = ' . fmt($f['p99'] / $f['fifo'], 2) . '×' : NA_OPTION,
        $f ? $pf($f['p99'] <= 1.2 * $f['fifo']) : 'n/a'];
}
if (isset($R['wait'])) {
    foreach (['distlock', 'distlock-fair'] as $id) {
        $w = $R['wait'][$id] ?? null;
        $T[] = ['a waiter sends ≤ 4 requests during a 2 s wait (plain SET first since issue 11)' . ($id === 'distlock-fair' ? ' (fair)' : ''),
            $w ? label($id) . ': ' . $w['req'] : NA_OPTION, $w ? $pf($w['req'] <= 4) : 'n/a'];
    }
}
if (isset($R['handover'])) {
    foreach (['distlock', 'distlock-fair'] as $id) {
        $h = $R['handover'][$id] ?? null;
        $T[] = ['hand-over p50 ≤ 1 ms on loopback' . ($id === 'distlock-fair' ? ' (fair)' : ''),
            $h ? label($id) . ': ' . ms($h['p50']) . ' ms (max ' . ms($h['max']) . ' ms)' : NA_OPTION, $h ? $pf($h['p50'] <= 1000) : 'n/a'];
    }
}
if (isset($R['deadline'])) {
    foreach (['distlock', 'distlock-fair'] as $id) {
        $d = $R['deadline'][$id] ?? null;
        $all = $d ? array_merge($d['sub'], $d['one']) : [];
        $T[] = ['a wait ends ≤ 5 ms after its deadline (p99, issue 21)' . ($id === 'distlock-fair' ? ' (fair)' : ''),
            $d ? label($id) . ': p50 ' . ms(pct($all, 50)) . ' ms, p99 ' . ms(pct($all, 99)) . ' ms' : NA_OPTION,
            $d ? $pf(pct($all, 99) <= 5000) : 'n/a'];
    }
}
if ($T) {
    $out[] = "## Targets (issues 4, 11 and 21)\n\nReported, not asserted.\n\n" . table(['target', 'measured', 'result'], $T);
}

echo implode("\n", $out);
progress('done');

<?php
/*
 * distlock's primitives beyond the mutex (issue 22) against their peers, in one run:
 *   1. uncontended cycles in one process: the mutex, a semaphore permit, a shared
 *      lease, a 2-name multi-lock; symfony/lock's read lock on its RedisStore
 *      (saveRead) beside the same through distlock's DistLockStore;
 *   2. semaphore hand-over: the parent holds both of 2 permits, a waiter process
 *      blocks; the parent stamps and gives one back; latency = the waiter's stamp
 *      when its acquire returns − the release stamp;
 *   3. one waiter's 2 s wait: both permits held 3 s, one waiter asks with a 2 s
 *      limit and gives up; the requests the server served meanwhile;
 *   4. contended semaphore: P processes × M sections of H µs under 2 permits.
 * Semaphore peers: Laravel's ConcurrencyLimiter (what Redis::funnel() builds;
 * php-illuminate-redis), symfony/semaphore's RedisStore (php-symfony-semaphore: it
 * has no blocking acquire, so a waiter retries acquire() every 100 ± 10 ms, as
 * symfony/lock's Lock retries a non-blocking store), and distlock's own Laravel
 * drop-in (DistLock\Laravel\Limiters\ConcurrencyLimiter) for the cost of its layer.
 *
 *   php -d extension=/abs/modules/distlock.so bench/primitives.php --redis=127.0.0.1:PORT [--quick] \
 *       > bench/results-primitives.md
 *
 * The server should be a throw-away one (`redis-server --save '' --appendonly no`):
 * the harness changes its slow-log settings to count requests (bench/README.md,
 * "How things are counted"). Markdown to stdout, progress to stderr.
 */
declare(strict_types=1);

namespace Bench;

require __DIR__ . '/lib/Adapter.php';
require __DIR__ . '/lib/ServerStats.php';
require __DIR__ . '/lib/util.php';
require_once 'Illuminate/Redis/autoload.php';
require_once 'Symfony/Component/Lock/autoload.php';
require_once 'Symfony/Component/Semaphore/autoload.php';
require __DIR__ . '/../integrations/symfony/src/DistLockStore.php';
foreach (['ConnectionClient', 'ConcurrencyLimiter'] as $c) {
    require __DIR__ . "/../integrations/laravel/src/Limiters/$c.php";
}

use Illuminate\Contracts\Redis\LimiterTimeoutException;
use Illuminate\Redis\Connections\PhpRedisConnection;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\RedisStore as LockRedisStore;
use Symfony\Component\Semaphore\SemaphoreFactory;
use Symfony\Component\Semaphore\Store\RedisStore as SemaphoreRedisStore;

errors_are_exceptions();
$opt = getopt('', ['redis:', 'quick', 'rounds:', 'cycles:', 'workers:', 'sections:', 'hold-us:', 'handovers:']);
if (!isset($opt['redis'])) {
    fwrite(STDERR, "usage: php -d extension=.../distlock.so bench/primitives.php --redis=HOST:PORT [--quick]\n");
    exit(2);
}
[$HOST, $PORT] = explode(':', (string) $opt['redis']) + [1 => '6379'];
$PORT = (int) $PORT;
$URI = "redis://$HOST:$PORT";
$QUICK = isset($opt['quick']);
$CFG = [
    'rounds' => (int) ($opt['rounds'] ?? ($QUICK ? 5 : 15)),
    'cycles' => (int) ($opt['cycles'] ?? ($QUICK ? 300 : 1000)),
    'workers' => (int) ($opt['workers'] ?? 8),
    'sections' => (int) ($opt['sections'] ?? ($QUICK ? 5 : 10)),
    'hold_us' => (int) ($opt['hold-us'] ?? 20000),
    'handovers' => (int) ($opt['handovers'] ?? ($QUICK ? 10 : 30)),
    'permits' => 2,
];
$stats = new ServerStats($HOST, $PORT);
$out = [];

/* ---- the semaphore implementations: run(name, ttl s, wait s, body) under one of 2 permits ---- */

/** @return \Closure(string, float, float, ?callable): bool */
function semaphore(string $id, string $uri, string $host, int $port): \Closure
{
    $limit = 2;
    switch ($id) {
        case 'distlock':
            $dl = new \DistLock($uri);
            return function (string $name, float $ttl, float $wait, ?callable $body) use ($dl, $limit): bool {
                try {
                    $p = $dl->acquirePermits($name, $limit, 1, $ttl, $wait);
                } catch (\DistLock\LockTimeoutException) {
                    return false;
                }
                if ($body) {
                    $body();
                }
                $p->release();
                return true;
            };
        case 'distlock-laravel':
            $dl = new \DistLock($uri);
            return function (string $name, float $ttl, float $wait, ?callable $body) use ($dl, $limit): bool {
                try {
                    (new \DistLock\Laravel\Limiters\ConcurrencyLimiter($dl, $name, $limit, (int) ceil($ttl)))
                        ->block($wait, $body ?? fn () => null);
                } catch (LimiterTimeoutException) {
                    return false;
                }
                return true;
            };
        case 'laravel':
            $conn = new PhpRedisConnection(redis_connect($host, $port), null, []);
            return function (string $name, float $ttl, float $wait, ?callable $body) use ($conn, $limit): bool {
                try {
                    (new \Illuminate\Redis\Limiters\ConcurrencyLimiter($conn, $name, $limit, (int) ceil($ttl)))
                        ->block((int) ceil($wait), $body ?? fn () => null);
                } catch (LimiterTimeoutException) {
                    return false;
                }
                return true;
            };
        case 'symfony':
            $factory = new SemaphoreFactory(new SemaphoreRedisStore(redis_connect($host, $port)));
            return function (string $name, float $ttl, float $wait, ?callable $body) use ($factory, $limit): bool {
                $s = $factory->createSemaphore($name, $limit, 1, $ttl, false);
                $deadline = microtime(true) + $wait;
                while (!$s->acquire()) {
                    if (microtime(true) >= $deadline) {
                        return false;
                    }
                    usleep(100000 + mt_rand(-10000, 10000));
                }
                if ($body) {
                    $body();
                }
                $s->release();
                return true;
            };
    }
    throw new \LogicException("unknown implementation $id");
}

/**
 * Client requests since $snap0 and the last slow-log reset: the slow log's top-level
 * commands (Lua-internal calls excluded), plus the BLPOPs that Redis leaves out of the
 * slow log when they block (counted from INFO commandstats; BLPOP never runs in Lua).
 * @return array{total: int, by: array<string, int>}
 */
function client_requests(ServerStats $stats, array $snap0): array
{
    $req = $stats->clientRequests();
    $blpop = ($stats->snapshot()['by']['blpop'] ?? 0) - ($snap0['by']['blpop'] ?? 0);
    if ($blpop > ($req['by']['blpop'] ?? 0)) {
        $req['total'] += $blpop - ($req['by']['blpop'] ?? 0);
        $req['by']['blpop'] = $blpop;
        ksort($req['by']);
    }
    return $req;
}

$SEM = [
    'distlock' => 'distlock `acquirePermits()`',
    'distlock-laravel' => 'distlock `Concurrency::funnel()` (its Laravel `ConcurrencyLimiter`)',
    'laravel' => 'Laravel `Redis::funnel()` (`ConcurrencyLimiter`)',
    'symfony' => 'symfony/semaphore `RedisStore`',
];
$semWaits = [
    'distlock' => 'blocks on Redis (BLPOP), woken by a release that frees a permit',
    'distlock-laravel' => 'the same, through the Laravel limiter',
    'laravel' => '`block($seconds)`: tries its slots every 250 ms',
    'symfony' => 'no blocking acquire: `acquire()` retried every 100 ± 10 ms',
];

$load = implode(' ', array_map(fn ($x) => number_format($x, 2), sys_getloadavg()));
$sh = fn (string $cmd): string => trim((string) shell_exec($cmd . ' 2>/dev/null'));
$out[] = "# Beyond the mutex: semaphores, shared locks and multi-locks against their peers\n\n"
    . "Generated by `bench/primitives.php` (" . date('Y-m-d H:i T') . ", mode: " . ($QUICK ? '`--quick`' : 'default') . "). "
    . "Every number comes from this run. To reproduce: start a throw-away `redis-server --port PORT --save '' --appendonly no`, then "
    . "`php -d extension=\$PWD/modules/distlock.so bench/primitives.php --redis=127.0.0.1:PORT > bench/results-primitives.md` "
    . "(needs php-redis, php-illuminate-redis, php-symfony-lock, php-symfony-semaphore). On a shared machine the µs move by tens "
    . "of percent between runs; the request counts do not.\n\n"
    . "- machine: " . $sh('nproc') . " CPUs (" . trim($sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")) . "), load average before the run: $load\n"
    . "- PHP " . PHP_VERSION . ", Redis " . ($stats->redis()->info('server')['redis_version'] ?? '?') . " (throw-away server on loopback TCP), "
    . "phpredis " . phpversion('redis') . ", distlock " . phpversion('distlock') . ", Laravel (illuminate/redis) "
    . $sh("dpkg-query -W -f='\${Version}' php-illuminate-redis") . ", symfony/lock and symfony/semaphore "
    . $sh("dpkg-query -W -f='\${Version}' php-symfony-semaphore") . " (Debian)\n"
    . "- parameters: " . json_encode($CFG) . "\n\n"
    . "| semaphore implementation | how a waiter waits |\n| --- | --- |\n"
    . implode('', array_map(fn ($id) => "| {$SEM[$id]} | {$semWaits[$id]} |\n", array_keys($SEM)));

// ---- 1. uncontended cycles ----------------------------------------------------

progress('uncontended: setting up');
$dl = new \DistLock($URI, ['prefix' => 'bench:p:']);
$sfRead = new LockFactory(new LockRedisStore(redis_connect($HOST, $PORT)));
$dlRead = new LockFactory(new \DistLock\Symfony\DistLockStore(new \DistLock($URI, ['prefix' => 'bench:p:'])));
$fail = fn (string $what) => throw new \RuntimeException("uncontended $what failed");
$cyclers = [
    'mutex' => ['distlock `tryLock()` + `release()` (the mutex, reference)', function () use ($dl, $fail): void {
        ($dl->tryLock('u:mutex', 10.0) ?? $fail('tryLock'))->release();
    }],
    'permit' => ['distlock `tryAcquirePermits()` (1 of 2) + `release()`', function () use ($dl, $fail): void {
        ($dl->tryAcquirePermits('u:sem', 2, 1, 10.0) ?? $fail('tryAcquirePermits'))->release();
    }],
    'shared' => ['distlock `tryLockShared()` + `release()`', function () use ($dl, $fail): void {
        ($dl->tryLockShared('u:rw', 10.0) ?? $fail('tryLockShared'))->release();
    }],
    'multi2' => ['distlock `tryLockAll()` of 2 names + 2 × `release()`', function () use ($dl, $fail): void {
        foreach ($dl->tryLockAll(['u:m1', 'u:m2'], 10.0) ?? $fail('tryLockAll') as $l) {
            $l->release();
        }
    }],
    'multi2-all' => ['distlock `tryLockAll()` of 2 names + `releaseAll()` (one round trip)', function () use ($dl, $fail): void {
        $dl->releaseAll($dl->tryLockAll(['u:ma1', 'u:ma2'], 10.0) ?? $fail('tryLockAll')) === 2 || $fail('releaseAll');
    }],
    'mutex-scoped' => ['distlock `tryLock()`, released at scope end (deferred reply)', function () use ($dl, $fail): void {
        $l = $dl->tryLock('u:mutex-s', 10.0) ?? $fail('tryLock');
        unset($l);
    }],
    'multi2-scoped' => ['distlock `tryLockAll()` of 2 names, released at scope end (deferred replies)', function () use ($dl, $fail): void {
        $ls = $dl->tryLockAll(['u:ms1', 'u:ms2'], 10.0) ?? $fail('tryLockAll');
        unset($ls);
    }],
    'sf-dl-read' => ['symfony/lock `acquireRead()` + `release()` on distlock\'s `DistLockStore`', function () use ($dlRead, $fail): void {
        $l = $dlRead->createLock('u:sfread', 10.0, false);
        $l->acquireRead() || $fail('acquireRead');
        $l->release();
    }],
    'sf-redis-read' => ['symfony/lock `acquireRead()` + `release()` on its `RedisStore` (saveRead)', function () use ($sfRead, $fail): void {
        $l = $sfRead->createLock('bench:p:u:sfredisread', 10.0, false);
        $l->acquireRead() || $fail('acquireRead');
        $l->release();
    }],
];
$samples = [];
for ($round = 0; $round <= $CFG['rounds']; $round++) {
    progress("uncontended: round $round/{$CFG['rounds']}" . ($round === 0 ? ' (warm-up, discarded)' : ''));
    foreach (rotate(array_keys($cyclers), $round) as $id) {
        $cycle = $cyclers[$id][1];
        gc_collect_cycles();
        $s0 = $stats->snapshot();
        $t0 = hrtime(true);
        for ($i = 0; $i < $CFG['cycles']; $i++) {
            $cycle();
        }
        $t1 = hrtime(true);
        $s1 = $stats->snapshot();
        if ($round > 0) {
            $samples[$id]['wall'][] = ($t1 - $t0) / 1e3 / $CFG['cycles'];
            $samples[$id]['reads'][] = ($s1['reads'] - $s0['reads'] - 1) / $CFG['cycles'];
            $samples[$id]['calls'][] = ($s1['calls'] - $s0['calls']) / $CFG['cycles'];
        }
    }
}
$U = [];
$rows = [];
foreach ($cyclers as $id => [$label]) {
    $U[$id] = ['wall' => median($samples[$id]['wall']), 'reads' => median($samples[$id]['reads']), 'calls' => median($samples[$id]['calls'])];
}
foreach ($cyclers as $id => [$label]) {
    $rows[] = [$label, fmt($U[$id]['wall']), fmt($U[$id]['wall'] / $U['mutex']['wall'], 2) . '×', fmt($U[$id]['reads'], 2), fmt($U[$id]['calls'], 2)];
}
$ratio = fn (string $a, string $b) => fmt($U[$a]['wall'] / $U[$b]['wall'], 2);
$out[] = "\n## 1. Uncontended cycles\n\n"
    . "One process, {$CFG['cycles']} cycles per batch, {$CFG['rounds']} measured rounds (+1 warm-up discarded), interleaved in rotated "
    . "order; medians of the per-batch means. Round trips: the server's `total_reads_processed`; server commands include those "
    . "Lua runs (`INFO commandstats`).\n\n"
    . table(['cycle', 'wall µs/cycle', '× mutex', 'round trips/cycle', 'server cmds/cycle'], $U ? $rows : [])
    . "\n- a permit cycle ÷ the mutex cycle: **" . $ratio('permit', 'mutex') . "×** (target ≤ 1.1×)\n"
    . "- a 2-name multi-lock ÷ one lock: **" . $ratio('multi2-all', 'mutex') . "×** released with `releaseAll()` (target ≤ 1.1×); "
    . $ratio('multi2', 'mutex') . "× with a `release()` per handle (one round trip more), " . $ratio('multi2-scoped', 'mutex-scoped')
    . "× released at scope end (each handle's release written on its own)\n"
    . "- symfony/lock read locks, RedisStore ÷ DistLockStore: **" . $ratio('sf-redis-read', 'sf-dl-read') . "×** ("
    . fmt($U['sf-redis-read']['reads'], 2) . " vs " . fmt($U['sf-dl-read']['reads'], 2) . " round trips)\n";

// ---- 2. semaphore hand-over ------------------------------------------------------

/**
 * The parent holds both permits; the waiter process blocks; the parent stamps and
 * gives one back. Latency = waiter's stamp − release stamp, µs.
 * @return list<float>
 */
function sem_handover(string $id, int $n, int $round, string $uri, string $host, int $port): array
{
    $name = "bench:ph:$id:$round";
    [$goR, $goW] = pair();
    [$resR, $resW] = pair();
    $pid = pcntl_fork();
    if ($pid === 0) {
        try {
            $run = semaphore($id, $uri, $host, $port);
            $run("$name:warm", 5.0, 1.0, null);
            fwrite($resW, 'r');
            while (read_exact($goR, 1, 120) === 'g') {
                $t = 0;
                $ok = $run($name, 10.0, 10.0, function () use (&$t): void {
                    $t = hrtime(true);
                });
                fwrite($resW, pack('q', $ok ? $t : 0));
            }
        } catch (\Throwable $e) {
            fwrite(STDERR, "hand-over waiter $id: " . $e->getMessage() . "\n");
        }
        child_exit();
    }
    $run = semaphore($id, $uri, $host, $port);
    $run("$name:warm", 5.0, 1.0, null);
    read_exact($resR, 1, 60);
    $lat = [];
    for ($i = 0; $i < $n; $i++) {
        $tRel = 0;
        $ok = $run($name, 10.0, 10.0, function () use ($run, $name, $goW, &$tRel): void {
            $run($name, 10.0, 10.0, function () use ($goW, &$tRel): void {
                fwrite($goW, 'g');
                usleep(150000 + mt_rand(0, 100000));   // the waiter is blocked (or between polls) by now
                $tRel = hrtime(true);
            });
        });
        $b = read_exact($resR, 8, 30);
        if (!$ok || $b === null) {
            break;
        }
        $t = unpack('q', $b)[1];
        if ($t > 0) {
            $lat[] = ($t - $tRel) / 1e3;
        }
    }
    fwrite($goW, 'q');
    pcntl_waitpid($pid, $st);
    return $lat;
}

mt_srand(42);
$H = [];
$rounds = $QUICK ? 1 : 2;
for ($round = 0; $round < $rounds; $round++) {
    foreach (rotate(array_keys($SEM), $round) as $id) {
        progress('hand-over: round ' . ($round + 1) . "/$rounds $id");
        $H[$id] = array_merge($H[$id] ?? [], sem_handover($id, (int) ceil($CFG['handovers'] / $rounds), $round, $URI, $HOST, $PORT));
    }
}
$rows = [];
foreach ($SEM as $id => $label) {
    $rows[] = [$label, ms(pct($H[$id], 50)), ms(pct($H[$id], 90)), ms(max($H[$id] ?: [NAN])), (string) count($H[$id])];
}
$out[] = "\n## 2. Semaphore hand-over (2 permits)\n\n"
    . "The parent holds both permits; a waiter process asks for one and blocks (or polls); after 150–250 ms the parent stamps "
    . "`hrtime()` and gives one back; the waiter stamps when its acquire returns. Latency = waiter stamp − release stamp.\n\n"
    . table(['implementation', 'p50 ms', 'p90 ms', 'max ms', 'hand-overs'], $rows)
    . "\ndistlock hand-over p50: **" . ms(pct($H['distlock'], 50)) . " ms** (target ≤ 1 ms).\n";

// ---- 3. one waiter's 2 s wait -----------------------------------------------------

/** Requests the server served while one waiter waited 2 s for a permit it never got. */
function sem_wait_requests(string $id, string $uri, string $host, int $port, ServerStats $stats): array
{
    $name = "bench:pw:$id";
    $run = semaphore($id, $uri, $host, $port);
    $run("$name:warm", 5.0, 1.0, null);
    [$r, $w] = pair();
    $pid = pcntl_fork();
    if ($pid === 0) {
        $run($name, 10.0, 10.0, function () use ($run, $name, $w): void {
            $run($name, 10.0, 10.0, function () use ($w): void {
                fwrite($w, 'h');
                usleep(3000000);
            });
        });
        child_exit();
    }
    read_exact($r, 1, 30);
    $waiter = semaphore($id, $uri, $host, $port);
    $waiter($name, 10.0, 0.3, null);   // warm: a connection, and the scripts of a wait that gives up
    $snap0 = $stats->snapshot();
    $stats->slowlogReset();
    $t0 = hrtime(true);
    $ok = $waiter($name, 10.0, 2.0, null);
    $waited = (hrtime(true) - $t0) / 1e9;
    $req = client_requests($stats, $snap0);
    pcntl_waitpid($pid, $st);
    return ['ok' => $ok, 'waited' => $waited, 'req' => $req['total'], 'by' => $req['by']];
}

$stats->slowlog(true);
$W = [];
foreach (array_keys($SEM) as $id) {
    progress("2 s wait: $id");
    $W[$id] = sem_wait_requests($id, $URI, $HOST, $PORT, $stats);
}
$stats->slowlog(false);
$rows = [];
foreach ($SEM as $id => $label) {
    $by = implode(' + ', array_map(fn ($c, $v) => strtoupper($c) . ($v > 1 ? "×$v" : ''), array_keys($W[$id]['by']), $W[$id]['by']));
    $rows[] = [$label, $W[$id]['ok'] ? 'got it (!)' : 'gave up', fmt($W[$id]['waited'], 2), (string) $W[$id]['req'], $by];
}
$out[] = "\n## 3. One waiter's 2 s wait\n\n"
    . "Both permits held for 3 s by another process; one waiter asks with a 2 s limit and gives up. Requests: every command the "
    . "server got from clients meanwhile (slow log, Lua-internal calls excluded, and the BLPOPs Redis leaves out of it, from "
    . "`INFO commandstats`), the waiter's alone since the holder is idle. The waiter has waited once before (0.3 s): its "
    . "connection and the scripts of a wait that gives up are warm.\n\n"
    . table(['implementation', 'result', 'returned after s', 'requests', 'requests sent'], $rows)
    . "\ndistlock: **{$W['distlock']['req']} requests** for a 2 s wait (target ≤ 3): the attempt, the blocking pop, and the "
    . "cancel on a new connection, which does not ask `HELLO` again (the same server): the wait ends at its own deadline by "
    . "dropping the connection that blocks, not at the server's next timer tick "
    . "(`docs/decisions/0018-deadlines-at-the-client.md`).\n";

// ---- 4. contended semaphore --------------------------------------------------------

/** P processes × M sections of H µs under 2 permits. */
function sem_contended(string $id, int $P, int $M, int $H, string $uri, string $host, int $port, ServerStats $stats): array
{
    $name = "bench:pc:$id";
    [$readyR, $readyW] = pair();
    [$goR, $goW] = pair();
    [$resR, $resW] = pair();
    $pids = [];
    for ($p = 0; $p < $P; $p++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $run = semaphore($id, $uri, $host, $port);
            $run("$name:warm:$p", 5.0, 1.0, null);
            fwrite($readyW, 'r');
            read_exact($goR, 1, 60);
            $waits = [];
            for ($m = 0; $m < $M; $m++) {
                $t0 = hrtime(true);
                $t1 = 0;
                $run($name, 10.0, 30.0, function () use (&$t1, $H): void {
                    $t1 = hrtime(true);
                    usleep($H);
                });
                $waits[] = $t1 > 0 ? ($t1 - $t0) / 1e3 : -1;
            }
            $s = json_encode($waits);
            fwrite($resW, pack('N', strlen($s)) . $s);
            child_exit();
        }
        $pids[] = $pid;
    }
    for ($p = 0; $p < $P; $p++) {
        read_exact($readyR, 1, 60);
    }
    $snap0 = $stats->snapshot();
    $stats->slowlogReset();
    $t0 = hrtime(true);
    fwrite($goW, str_repeat('g', $P));
    $waits = [];
    for ($p = 0; $p < $P; $p++) {
        $len = unpack('N', read_exact($resR, 4, 300))[1];
        $waits = array_merge($waits, json_decode(read_exact($resR, $len, 30), true));
    }
    $wall = (hrtime(true) - $t0) / 1e6;
    foreach ($pids as $pid) {
        pcntl_waitpid($pid, $st);
    }
    $req = client_requests($stats, $snap0);
    return ['wall' => $wall, 'waits' => array_values(array_filter($waits, fn ($w) => $w >= 0)),
        'failed' => count(array_filter($waits, fn ($w) => $w < 0)), 'req' => $req['total'] / ($P * $M)];
}

[$P, $M, $Hus] = [$CFG['workers'], $CFG['sections'], $CFG['hold_us']];
$stats->slowlog(true);
$C = [];
foreach (array_keys($SEM) as $id) {
    progress("contended: $id");
    $C[$id] = sem_contended($id, $P, $M, $Hus, $URI, $HOST, $PORT, $stats);
}
$stats->slowlog(false);
$ideal = $P * $M * $Hus / 1000 / $CFG['permits'];
$rows = [];
foreach ($SEM as $id => $label) {
    $c = $C[$id];
    $rows[] = [$label, fmt($c['wall'], 0), fmt($c['wall'] / $ideal, 2) . '×', ms(pct($c['waits'], 50)), ms(pct($c['waits'], 99)),
        (string) $c['failed'], fmt($c['req'], 2)];
}
$out[] = "\n## 4. Contended semaphore: $P processes × $M sections of " . fmt($Hus / 1000, 1) . " ms, {$CFG['permits']} permits\n\n"
    . "Each worker (pcntl_fork, own connections) loops: acquire one of the 2 permits (30 s limit), usleep(H), release. "
    . "Ideal wall = P·M·H / 2 = " . fmt($ideal, 0) . " ms. Wait = from the acquire call to the permit, over all acquisitions. "
    . "Requests: client commands (slow log and BLPOPs, as in 3) per acquisition.\n\n"
    . table(['implementation', 'wall ms', '× ideal', 'wait p50 ms', 'wait p99 ms', 'gave up', 'requests/acquisition'], $rows);

echo implode('', $out);

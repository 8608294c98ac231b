<?php
declare(strict_types=1);
/*
 * bench/laravel.php — Cache::lock()->block() under contention: the distlock
 * cache store (integrations/laravel) against Laravel's own Redis store.
 *
 *   php -d extension=modules/distlock.so bench/laravel.php --redis=127.0.0.1:PORT [--out=bench/results-laravel.md]
 *
 * Sections: 8 processes × 20 critical sections of 10 ms (read-modify-write of
 * a counter: lost updates, wait p50/p99); hand-over latency (holder stamps
 * hrtime() just before release, the blocked waiter when block() returns);
 * requests a waiter sends during a 2 s wait (slow log, bench/lib/ServerStats).
 */
namespace Bench;

require __DIR__ . '/lib/util.php';
require __DIR__ . '/lib/Adapter.php';
require __DIR__ . '/lib/ServerStats.php';
require __DIR__ . '/lib/LaravelStoreAdapter.php';

$opt = getopt('', ['redis:', 'out:', 'workers:', 'sections:', 'hold-us:', 'handovers:']);
[$HOST, $PORT] = explode(':', $opt['redis'] ?? '127.0.0.1:6379');
$PORT = (int) $PORT;
$P = (int) ($opt['workers'] ?? 8);
$M = (int) ($opt['sections'] ?? 20);
$H = (int) ($opt['hold-us'] ?? 10000);
$N = (int) ($opt['handovers'] ?? 20);
$IDS = ['laravel-distlock', 'laravel-redis'];
$stats = new ServerStats($HOST, $PORT);
$make = fn (string $id) => new LaravelStoreAdapter($id, $HOST, $PORT);

/** @return array{wall:float, waits:list<float>, lost:int} */
function contended(string $id, callable $make, string $host, int $port, int $P, int $M, int $H): array
{
    $name = "bench:lc:$id";
    $ctr = redis_connect($host, $port);
    $ctr->set("bench:lc:counter:$id", 0);
    [$goR, $goW] = pair();
    [$resR, $resW] = pair();
    $pids = [];
    for ($w = 0; $w < $P; $w++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $a = $make($id);
            $a->warm();
            $c = redis_connect($host, $port);
            fwrite($resW, 'r');
            read_exact($goR, 1, 60);
            $waits = [];
            for ($i = 0; $i < $M; $i++) {
                $t0 = hrtime(true);
                $a->run($name, 10.0, 30.0, function () use (&$waits, $t0, $c, $id, $H) {
                    $waits[] = (hrtime(true) - $t0) / 1e3;
                    $v = (int) $c->get("bench:lc:counter:$id");
                    usleep($H);
                    $c->set("bench:lc:counter:$id", $v + 1);
                });
            }
            $s = json_encode($waits);
            fwrite($resW, pack('N', strlen($s)) . $s);
            child_exit();
        }
        $pids[] = $pid;
    }
    read_exact($resR, $P, 60);
    $t = hrtime(true);
    fwrite($goW, str_repeat('g', $P));
    $waits = [];
    for ($w = 0; $w < $P; $w++) {
        $len = unpack('N', read_exact($resR, 4, 600))[1];
        $waits = array_merge($waits, json_decode(read_exact($resR, $len, 60), true));
    }
    $wall = (hrtime(true) - $t) / 1e3;
    foreach ($pids as $pid) {
        pcntl_waitpid($pid, $st);
    }
    return ['wall' => $wall, 'waits' => $waits, 'lost' => $P * $M - (int) $ctr->get("bench:lc:counter:$id")];
}

/** @return list<float> hand-over latencies, µs */
function handover(string $id, callable $make, int $N): array
{
    $lat = [];
    $holder = $make($id);
    $holder->warm();
    mt_srand(42);
    for ($i = 0; $i < $N; $i++) {
        $name = "bench:lh:$id";
        [$rR, $rW] = pair();
        $holdUs = mt_rand(5000, 50000);
        $tRel = 0;
        $holder->run($name, 10.0, 5.0, function () use ($id, $make, $name, $rR, $rW, $holdUs, &$tRel, &$pid) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                $a = $make($id);
                fwrite($rW, 'r');
                $a->run($name, 10.0, 10.0, function () use ($rW) {
                    fwrite($rW, pack('J', hrtime(true)));
                });
                child_exit();
            }
            read_exact($rR, 1, 10);
            usleep($holdUs);
            $tRel = hrtime(true);
        });
        $t = read_exact($rR, 8, 15);
        pcntl_waitpid($pid, $st);
        if ($t !== null) {
            $lat[] = (unpack('J', $t)[1] - $tRel) / 1e3;
        }
    }
    return $lat;
}

/** @return array{req:int, by:array<string,int>, ok:bool, waited:float} */
function wait2s(string $id, callable $make, ServerStats $stats): array
{
    $holder = $make($id);
    $holder->warm();
    $out = [];
    $holder->run("bench:lw:$id", 10.0, 5.0, function () use ($id, $make, $stats, &$out) {
        [$rR, $rW] = pair();
        $a = $make($id);
        $a->warm();
        $stats->slowlogReset();
        $stats->slowlog(true);
        $pid = pcntl_fork();
        if ($pid === 0) {
            $t0 = hrtime(true);
            $ok = $a->run("bench:lw:$id", 10.0, 2.0, null);
            fwrite($rW, str_pad(json_encode(['ok' => $ok, 'waited' => (hrtime(true) - $t0) / 1e9]), 100));
            child_exit();
        }
        $line = read_exact($rR, 100, 5);
        pcntl_waitpid($pid, $st);
        $c = $stats->clientRequests();
        $stats->slowlog(false);
        $out = json_decode(trim((string) $line), true) + ['req' => $c['total'], 'by' => $c['by']];
    });
    return $out;
}

$R = [];
foreach ($IDS as $id) {
    progress("contended: $id");
    $R[$id]['c'] = contended($id, $make, $HOST, $PORT, $P, $M, $H);
    progress("hand-over: $id");
    $R[$id]['h'] = handover($id, $make, $N);
    progress("2 s wait: $id");
    $R[$id]['w'] = wait2s($id, $make, $stats);
}

$info = $stats->redis()->info('server');
$md = "# Laravel: Cache::lock()->block(), distlock store vs Laravel's Redis store\n\n"
    . sprintf("Machine: %d CPUs, load %s; PHP %s; Redis %s; Laravel (illuminate/cache) %s; distlock %s. Run: `php -d extension=modules/distlock.so bench/laravel.php --redis=HOST:PORT`.\n\n",
        (int) shell_exec('nproc'), implode(' ', array_map(fn ($x) => number_format($x, 2), sys_getloadavg())), PHP_VERSION,
        $info['redis_version'] ?? '?', trim((string) shell_exec("dpkg-query -W -f='\${Version}' php-illuminate-cache 2>/dev/null")), phpversion('distlock'))
    . "Both rows run `Cache::lock(\$name, \$ttl)->block(\$wait)` on a store object (one lock object per acquisition), same keys. "
    . "Laravel's own store retries every 250 ms with whole seconds; the distlock store waits by BLPOP and is woken by the release.\n\n"
    . "## Contended: $P processes × $M sections of " . ($H / 1000) . " ms (read-modify-write of a counter)\n\n";
$rows = [];
foreach ($IDS as $id) {
    $c = $R[$id]['c'];
    $rows[] = [$id, ms($c['wall']), fmt($c['wall'] / ($P * $M * $H), 2), ms(pct($c['waits'], 50)), ms(pct($c['waits'], 99)), ms(max($c['waits'])), (string) $c['lost']];
}
$md .= table(['store', 'wall ms', '× ideal', 'wait p50 ms', 'wait p99 ms', 'wait max ms', 'lost updates'], $rows);
$md .= "\n## Hand-over latency (holder's release call → waiter's block() returns), $N hand-overs, holds 5–50 ms\n\n";
$rows = [];
foreach ($IDS as $id) {
    $h = $R[$id]['h'];
    $rows[] = [$id, ms(pct($h, 50)), ms(pct($h, 99)), ms(max($h ?: [NAN])), (string) count($h)];
}
$md .= table(['store', 'p50 ms', 'p99 ms', 'max ms', 'n'], $rows);
$md .= "\n## Requests a waiter sends during a 2 s wait (holder keeps the lock)\n\n";
$rows = [];
foreach ($IDS as $id) {
    $w = $R[$id]['w'];
    $rows[] = [$id, (string) $w['req'], implode(', ', array_map(fn ($k, $v) => "$k $v", array_keys($w['by']), $w['by'])), $w['ok'] ? 'acquired (!)' : 'gave up after ' . fmt($w['waited'], 2) . ' s'];
}
$md .= table(['store', 'requests', 'commands', 'outcome'], $rows);
echo $md;
if (isset($opt['out'])) {
    file_put_contents($opt['out'], $md);
}

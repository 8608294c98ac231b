<?php
/*
 * bench/redlock.php — what a quorum costs: one uncontended acquire + release
 * cycle on one server, and over Redlock with N = 3 and N = 5 masters, against
 * php-lock's PHPRedisMutex (malkusch/lock 2.2, Debian) over the same N
 * masters. That mutex asks its servers one after another; distlock asks them
 * all at once (dl_fanout). Rounds are interleaved, so that drift on this
 * shared machine hits every row alike; each row reports the median and p99.
 *
 *   php -d extension=modules/distlock.so -d extension=redis bench/redlock.php \
 *       PORT1,PORT2,PORT3,PORT4,PORT5 [ROUNDS] [DELAY_US]
 *
 * DELAY_US > 0 puts a delaying proxy (lib/DelayProxy.php: DELAY_US each way)
 * in front of every master: a network where a round trip costs what it does
 * between zones, where asking N masters in turn costs N round trips.
 */
require __DIR__ . '/lib/util.php';
require __DIR__ . '/lib/DelayProxy.php';
require_once 'Malkusch/Lock/autoload.php';

use Bench\DelayProxy;
use malkusch\lock\mutex\PHPRedisMutex;
use function Bench\{errors_are_exceptions, fmt, median, pct, table};

errors_are_exceptions();
$ports = array_map('intval', explode(',', $argv[1] ?? ''));
$rounds = (int)($argv[2] ?? 2000);
$delay = (int)($argv[3] ?? 0);
if (count($ports) < 5) {
    fwrite(STDERR, "usage: php bench/redlock.php P1,P2,P3,P4,P5 [ROUNDS] [DELAY_US]\n");
    exit(2);
}
$proxies = [];
if ($delay > 0) {
    foreach ($ports as $i => $p) {
        $proxies[$i] = new DelayProxy('127.0.0.1', $p, $delay);
        $ports[$i] = $proxies[$i]->port;
    }
}
$uris = array_map(fn($p) => "redis://127.0.0.1:$p", $ports);
$redis = array_map(function ($p) {
    $r = new Redis();
    $r->connect('127.0.0.1', $p, 2.0);
    $r->setOption(Redis::OPT_TCP_KEEPALIVE, 0);
    return $r;
}, $ports);

$opts = ['prefix' => 'bench_rl:', 'ttl' => 10, 'timeout' => 1];
$cases = [
    'distlock, 1 server'         => (function () use ($uris, $opts) { $d = new DistLock($uris[0], $opts); return fn($k) => $d->tryLock($k)->release(); })(),
    'distlock Redlock, N = 3'    => (function () use ($uris, $opts) { $d = new DistLock(array_slice($uris, 0, 3), $opts); return fn($k) => $d->tryLock($k)->release(); })(),
    'distlock Redlock, N = 5'    => (function () use ($uris, $opts) { $d = new DistLock($uris, $opts); return fn($k) => $d->tryLock($k)->release(); })(),
    'php-lock PHPRedisMutex, N = 3' => (function () use ($redis) { $r = array_slice($redis, 0, 3); return fn($k) => (new PHPRedisMutex($r, "bench_rl:$k", 10))->synchronized(static function (): void {}); })(),
    'php-lock PHPRedisMutex, N = 5' => (function () use ($redis) { return fn($k) => (new PHPRedisMutex($redis, "bench_rl:$k", 10))->synchronized(static function (): void {}); })(),
];
$t = [];
foreach ($cases as $label => $f) {
    for ($i = 0; $i < 50; $i++) $f("warm$i");
    $t[$label] = [];
}
for ($i = 0; $i < $rounds; $i++) {
    foreach ($cases as $label => $f) {
        $t0 = hrtime(true);
        $f("k$i");
        $t[$label][] = (hrtime(true) - $t0) / 1e3;
    }
}
$single = median($t['distlock, 1 server']);
$rows = [];
foreach ($t as $label => $xs) {
    $m = median($xs);
    $n = str_ends_with($label, '3') ? 3 : (str_ends_with($label, '5') ? 5 : 1);
    $peer = $n > 1 && str_starts_with($label, 'distlock') ? median($t["php-lock PHPRedisMutex, N = $n"]) : null;
    $rows[] = [$label, fmt($m), fmt(pct($xs, 99)), fmt($m / $single, 2) . '×',
               $peer ? fmt($m / $peer, 2) . '×' : ''];
}
printf("distlock %s, %d interleaved rounds, one uncontended acquire + release per cycle, %s\n\n",
       phpversion('distlock'), $rounds, $delay > 0 ? "through a proxy adding {$delay} µs each way to every master" : 'loopback');
echo table(['cycle', 'median µs', 'p99 µs', 'vs 1 server', 'vs php-lock, same N'], $rows), "\n";

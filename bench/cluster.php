<?php
/*
 * bench/cluster.php — what routing costs: one uncontended tryLock() +
 * release() cycle on one redis-server and on a Redis Cluster (the slot map
 * loaded, names spread over every master), interleaved rounds, median and p99.
 *
 *   php -d extension=modules/distlock.so bench/cluster.php SINGLE_PORT SEED_PORT [ROUNDS]
 */
require __DIR__ . '/lib/util.php';

use function Bench\{errors_are_exceptions, fmt, median, pct, table};

errors_are_exceptions();
[$single, $seed] = [(int)($argv[1] ?? 0), (int)($argv[2] ?? 0)];
$rounds = (int)($argv[3] ?? 5000);
if (!$single || !$seed) {
    fwrite(STDERR, "usage: php bench/cluster.php SINGLE_PORT SEED_PORT [ROUNDS]\n");
    exit(2);
}
$opts = ['prefix' => 'bench_cl:', 'ttl' => 10];
$cases = [
    'one server' => new DistLock("redis://127.0.0.1:$single", $opts),
    'cluster (3 masters)' => new DistLock("redis://127.0.0.1:$seed", $opts + ['cluster' => true]),
];
$t = [];
foreach ($cases as $label => $d) {
    for ($i = 0; $i < 100; $i++) $d->tryLock("warm$i")->release();   // the slot map, a connection per master
    $t[$label] = [];
}
for ($i = 0; $i < $rounds; $i++) {
    foreach ($cases as $label => $d) {
        $t0 = hrtime(true);
        $d->tryLock("k$i")->release();
        $t[$label][] = (hrtime(true) - $t0) / 1e3;
    }
}
$base = median($t['one server']);
$rows = [];
foreach ($t as $label => $xs) {
    $rows[] = [$label, fmt(median($xs)), fmt(pct($xs, 99)), fmt(median($xs) / $base, 2) . '×'];
}
printf("distlock %s, %d interleaved rounds, one uncontended tryLock() + release() per cycle, loopback\n\n",
       phpversion('distlock'), $rounds);
echo table(['cycle', 'median µs', 'p99 µs', 'vs one server'], $rows), "\n";

<?php
/*
 * bench/tls.php — what TLS costs a lock: one uncontended cycle (tryLock +
 * release) on a fresh connection (new DistLock each time: TCP connect, TLS
 * handshake, the cycle) and on a persistent one (the pooled connection: the
 * cycle only), over TLS and over plain TCP to the same redis-server.
 *
 *   php -d extension=/path/to/TLS-build/distlock.so bench/tls.php \
 *       PLAIN_PORT TLS_PORT CA_FILE [ROUNDS]
 *
 * Needs a distlock built with TLS (tests/tls/run.sh makes one) and a
 * redis-server with --port PLAIN_PORT --tls-port TLS_PORT whose certificate
 * CA_FILE verifies (tests/tls/certs.sh). Reports the median and p99 of each
 * cycle in µs, rounds interleaved so that drift hits every row alike.
 */
require __DIR__ . '/lib/util.php';

use function Bench\{fmt, median, pct, table};

[$plainPort, $tlsPort, $ca] = [(int)($argv[1] ?? 0), (int)($argv[2] ?? 0), $argv[3] ?? ''];
$rounds = (int)($argv[4] ?? 2000);
if (!$plainPort || !$tlsPort || !is_readable($ca)) {
    fwrite(STDERR, "usage: php bench/tls.php PLAIN_PORT TLS_PORT CA_FILE [ROUNDS]\n");
    exit(2);
}
$cases = [
    'plain, fresh connection'      => ["redis://127.0.0.1:$plainPort", []],
    'TLS, fresh connection'        => ["rediss://127.0.0.1:$tlsPort", ['tls_ca' => $ca]],
    'plain, persistent connection' => ["redis://127.0.0.1:$plainPort", ['persistent' => 'bench']],
    'TLS, persistent connection'   => ["rediss://127.0.0.1:$tlsPort", ['tls_ca' => $ca, 'persistent' => 'bench']],
];
$t = [];
foreach ($cases as $label => [$uri, $o]) {    // warm-up (and the pools' first connection)
    for ($i = 0; $i < 50; $i++) (new DistLock($uri, $o + ['prefix' => 'bench_tls:']))->tryLock('w')?->release();
    $t[$label] = [];
}
for ($i = 0; $i < $rounds; $i++) {
    foreach ($cases as $label => [$uri, $o]) {
        $t0 = hrtime(true);
        $d = new DistLock($uri, $o + ['prefix' => 'bench_tls:']);
        $l = $d->tryLock("k$i");
        $l->release();
        unset($l, $d);                        // a fresh connection is closed here, a persistent one pooled
        $t[$label][] = (hrtime(true) - $t0) / 1e3;
    }
}
$rows = [];
foreach ($t as $label => $xs) {
    $rows[] = [$label, fmt(median($xs)), fmt(pct($xs, 99)), number_format(1e6 / median($xs), 0, ".", "")];
}
echo "distlock ", phpversion('distlock'), ", ", $rounds, " rounds per row, one uncontended tryLock()+release() per cycle, loopback\n\n";
echo table(['cycle', 'median µs', 'p99 µs', 'cycles/s (1/median)'], $rows), "\n";

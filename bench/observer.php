<?php
/*
 * bench/observer.php — the cost of observing locks (issue 29): the uncontended
 * tryLock() + release() cycle, timed in rounds, with no observer, with a
 * no-op observer, or with what a bootstrap file registers (the OpenTelemetry
 * SDK row: a file that sets up the SDK and calls its registration).
 *
 * usage: php -d extension=distlock.so bench/observer.php --redis=127.0.0.1:PORT
 *            [--mode=none|noop] [--bootstrap=FILE] [--cycles=N] [--rounds=R]
 *
 * --bootstrap=FILE is required (include) before timing; it registers its
 * observer(s) itself, with DistLock::addObserver() or an integration's call.
 * Prints one JSON line: {"mode", "ns_per_cycle": [wall clock, one per round],
 * "cpu_ns_per_cycle": [this process's user + system CPU time, one per round], "events"}.
 * The CPU time is what the observer adds to the PHP process: it does not count
 * the time spent waiting for Redis, so it moves less with the machine's load.
 * bench/observer-run runs it for several builds side by side and writes
 * bench/results-observer.md.
 */
$opt = getopt('', ['redis:', 'mode:', 'bootstrap:', 'cycles:', 'rounds:']);
$redis = $opt['redis'] ?? '127.0.0.1:6379';
$mode = $opt['mode'] ?? 'none';
$cycles = (int)($opt['cycles'] ?? 20000);
$rounds = (int)($opt['rounds'] ?? 5);
$events = 0;

if (isset($opt['bootstrap'])) {
    $mode = 'bootstrap:' . basename($opt['bootstrap']);
    require $opt['bootstrap'];
} elseif ($mode === 'noop') {
    DistLock::addObserver(function (DistLock\Event $e): void {});
} elseif ($mode === 'count') {
    DistLock::addObserver(function (DistLock\Event $e) use (&$events): void { $events++; });
} elseif ($mode !== 'none') {
    fwrite(STDERR, "observer.php: unknown --mode=$mode\n");
    exit(2);
}

$d = new DistLock("redis://$redis", ['prefix' => 'bench_observer:' . getmypid() . ':']);
for ($i = 0; $i < 1000; $i++) {   // warm up: connection, script cache, CPU caches
    $d->tryLock('c')->release();
}
function cpu_ns(): int
{
    $u = getrusage();
    return ($u['ru_utime.tv_sec'] + $u['ru_stime.tv_sec']) * 1000000000 + ($u['ru_utime.tv_usec'] + $u['ru_stime.tv_usec']) * 1000;
}
$out = $cpu = [];
for ($r = 0; $r < $rounds; $r++) {
    $c0 = cpu_ns();
    $t0 = hrtime(true);
    for ($i = 0; $i < $cycles; $i++) {
        $l = $d->tryLock('c');
        $l->release();
    }
    $out[] = (hrtime(true) - $t0) / $cycles;
    $cpu[] = (cpu_ns() - $c0) / $cycles;
}
echo json_encode(['mode' => $mode, 'ns_per_cycle' => $out, 'cpu_ns_per_cycle' => $cpu, 'events' => $events]), "\n";

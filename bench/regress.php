<?php
/*
 * bench/regress.php — one measurement of bench/regress: CYCLES cycles of one
 * implementation in one section, in this process; prints the µs per cycle.
 *
 *   php [-d extension=.../distlock.so] bench/regress.php IMPL SECTION PORT CYCLES
 *
 * IMPL: distlock (the extension this php loaded: head's or base's), phpredis
 * (the hand-written lock: SET NX PX, then the owner-checked release script by
 * EVALSHA), floor (two PINGs through phpredis: two round trips, no lock),
 * same (uncontended only: phpredis sending distlock's own commands, taken
 * from MONITOR: SET K tok NX PX ttl GET, then on a server with DELEX
 * "DELEX K IFEQ tok" and "EXISTS Q" in one write, on one with DELIFEQ
 * "DELIFEQ K tok" and "EXISTS Q", elsewhere distlock's release script by
 * EVALSHA with its keys K W Q and arguments tok, 2000, its text printed from
 * src/core/lease/dl_scripts.h: bench/lib/release-script.php, which needs cc).
 * The cycles are bench/lib/cycles.php's. The same server work through a PHP client:
 * head / same is what distlock's client costs against phpredis's.
 * SECTION: uncontended (acquire + release, explicit), scoped (acquire, and
 * the release of a handle going out of scope: distlock's deferred release;
 * the recipe has no scope, so its explicit release), handover (two processes
 * taking one name in turns: the median µs from one's release to the other's
 * grant; distlock waits in lock(), the recipe retries SET NX every 1 ms).
 * PORT: the server (or the delay proxy in front of it) on 127.0.0.1.
 */
require __DIR__ . '/lib/cycles.php';

use function Bench\cycle;

[$impl, $section, $port, $cycles] = array_slice($argv, 1) + [null, null, null, null];
$port = (int)$port;
$cycles = (int)$cycles;
if (!in_array($impl, ['distlock', 'phpredis', 'floor', 'same'], true) || !in_array($section, ['uncontended', 'scoped', 'handover'], true)
    || ($impl === 'same' && $section !== 'uncontended') || $port <= 0 || $cycles <= 0) {
    fwrite(STDERR, "usage: php bench/regress.php distlock|phpredis|floor|same uncontended|scoped|handover PORT CYCLES\n");
    exit(2);
}
$key = "regress:$section:" . getmypid();

if ($section === 'handover') {
    // Two children take one name in turns. Each notes, just before it
    // releases, its pid and the time (in a key, by a connection of its own,
    // while it holds the lock); the other, granted, reads it: the hand-over
    // latency runs from that release to this grant (CLOCK_MONOTONIC is one
    // clock for every process). The median of the grants that came to a
    // waiter: asked before the other's release.
    $key = 'regress:handover';
    $per = intdiv($cycles, 2);
    $out = tempnam(sys_get_temp_dir(), 'regress');
    $pids = [];
    for ($c = 0; $c < 2; $c++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $take = cycle($impl, $section, $port, $key);   // acquires; returns the release
            $note = new Redis();
            $note->connect('127.0.0.1', $port, 2.0);
            $lat = [];
            for ($i = 0; $i < $per; $i++) {
                $asked = hrtime(true);
                $release = $take();
                $got = hrtime(true);
                $prev = $note->get("$key:released");
                if (is_string($prev)) {
                    [$who, $at] = explode(':', $prev);
                    // a hand-over: the other released while this one waited
                    if ((int)$who !== getmypid() && (int)$at > $asked) $lat[] = ($got - (int)$at) / 1e3;
                }
                $note->set("$key:released", getmypid() . ':' . hrtime(true));
                $release();
                usleep(2000);                              // longer than the recipe's 1 ms retry: the other takes it
            }
            file_put_contents($out, implode("\n", $lat) . "\n", FILE_APPEND | LOCK_EX);
            exit(0);
        }
        $pids[] = $pid;
    }
    foreach ($pids as $pid) pcntl_waitpid($pid, $st);
    $lat = array_map('floatval', array_filter(explode("\n", (string)file_get_contents($out)), 'strlen'));
    unlink($out);
    sort($lat);
    printf("%.2f\n", $lat ? $lat[intdiv(count($lat), 2)] : -1);
    exit(0);
}
$run = cycle($impl, $section, $port, $key);
for ($i = 0; $i < 200; $i++) $run();   // warm: the scripts cached, the code paths hot
$t0 = hrtime(true);
for ($i = 0; $i < $cycles; $i++) $run();
printf("%.2f\n", (hrtime(true) - $t0) / 1e3 / $cycles);

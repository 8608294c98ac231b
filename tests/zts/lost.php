<?php
/*
 * The on_lost => 'throw' request of tests/zts/harness.c: every thread holds a
 * lease under the watchdog; the keys of threads 0 and 1 are deleted behind
 * their backs at once, and LockLostException must reach both of those
 * requests (one watchdog round finds both: a flag per process would be taken
 * by the first thread and the second would never hear), and no other.
 */
require __DIR__ . '/../phpt/inc/redis.inc';
$P = (int)getenv('HARNESS_PROC');
$n = (int)getenv('HARNESS_THREADS');
$d = new DistLock(test_uri(), ['prefix' => 'zts:', 'watchdog' => true, 'on_lost' => 'throw', 'ttl' => 0.6]);
$l = $d->lock("wd:$P:$T", null, 10);
raw_redis('INCR', "zts:wd:ready:$P");
$t0 = microtime(true);
while ((int)raw_redis('GET', "zts:wd:ready:$P") < $n && microtime(true) - $t0 < 10) usleep(1000);
if ($T === 0) raw_redis('DEL', "zts:wd:$P:0", "zts:wd:$P:1");   // lost: the next renewal finds both gone
$end = microtime(true) + 2.5;
try {
    while (microtime(true) < $end) { $x = 0; for ($i = 0; $i < 20000; $i++) $x += $i; }
    raw_redis('INCR', "zts:wd:quiet:$T");
} catch (DistLock\LockLostException $e) {
    raw_redis('INCR', "zts:wd:raised:$T");
}
if ($T > 1 && !$l->isAcquired()) raw_redis('INCR', 'zts:violations:wd');

--TEST--
Semaphores: never more than N holders (8 processes x 200 acquisitions of 2 permits, a shared counter checks); a SIGKILLed holder's permit comes back at its lease end; a release wakes a waiter; permits() and errors
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_401:';
raw_redis_del_prefix($p);
$slow = (is_valgrind() ? 10 : 1) * lc_load() * test_slowdown();
$loops = is_valgrind() ? 20 : 200;

// 1. 8 processes, 2 permits: each holder counts itself in while it holds one
$pids = [];
for ($i = 0; $i < 8; $i++) {
    $pids[] = fork_child(function () use ($uri, $p, $loops) {
        $d = new DistLock($uri, ['prefix' => $p]);
        raw_redis_conn(true);
        $bad = 0;
        for ($n = 0; $n < $loops; $n++) {
            $permit = $d->acquirePermits('pool', 2, 1, 10, 30);
            if ((int)raw_redis('INCR', 'phpt_401:inside') > 2) $bad++;
            usleep(200);
            raw_redis('DECR', 'phpt_401:inside');
            $permit->release();
        }
        return $bad === 0 ? 0 : 1;
    });
}
$res = [];
foreach ($pids as $pid) $res[] = wait_child($pid);
echo "8 processes x $loops acquisitions of 1 of 2 permits, more than 2 inside: ",
    count(array_filter($res, fn($r) => $r !== 'exit=0')), " processes saw it (", implode(' ', array_unique($res)), ")\n";
echo "left after: ", json_encode(raw_redis('KEYS', $p . 'pool*')), "\n";
raw_redis('DEL', $p . 'inside');

// 2. a holder SIGKILLed with its permit: the permit serves a waiter at its lease end
$pid = fork_child(function () use ($uri, $p) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $held = $d->acquirePermits('k', 1, 1, 1.0);
    posix_kill(posix_getpid(), SIGKILL);
});
lc_wait_until(fn() => raw_redis('EXISTS', $p . 'k') === 1, 10);
$d = new DistLock($uri, ['prefix' => $p]);
$t = microtime(true);
$l = $d->acquirePermits('k', 1, 1, 5, 5);
$el = microtime(true) - $t;
echo wait_child($pid), ": the dead holder's permit came back at its lease end (about 1 s): ",
    var_export($el > 0.7 && $el < 1.0 + 0.5 * $slow, true), "\n";
$l->release();

// 3. a waiter is woken by a release at once, and takes 2 permits when 2 are freed
$a = $d->acquirePermits('w', 3, 2, 10);
$b = $d->acquirePermits('w', 3, 1, 10);
echo "permits(): ", json_encode($d->permits('w')), "\n";
$atFile = sys_get_temp_dir() . '/phpt_401.at.' . getmypid();   // this run's own: suites run at once on one machine
$pid = fork_child(function () use ($uri, $p, $atFile) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $l = $d->acquirePermits('w', 3, 2, 10, 10);
    file_put_contents($atFile, (string)hrtime(true));
    $l->release();
    return 0;
});
lc_wait_until(fn() => raw_redis('ZCARD', $p . 'w{' . $p . 'w}:waiters') === 1, 10);
usleep(100000);
$rel = hrtime(true);
$a->release();
echo wait_child($pid), ", the waiter got 2 permits within 50 ms of the release: ",
    var_export(((int)file_get_contents($atFile) - $rel) / 1e6 < 50 * $slow, true), "\n";
$b->release();
echo "permits() when idle: ", json_encode($d->permits('w')), "\n";

// 4. the handle has a Lock's life: scope release, request end, timeout
function scoped(DistLock $d) { $l = $d->acquirePermits('s', 1); return $d->permits('s')['used']; }
echo "used in scope: ", scoped($d), ", after it: ", $d->permits('s')['used'], "\n";
$keep = $d->acquirePermits('s', 1);
$d2 = new DistLock($uri, ['prefix' => $p]);   // another owner: this instance's own would fail at once (419)
try { $d2->acquirePermits('s', 1, 1, null, 0.1); } catch (DistLock\LockTimeoutException $e) { echo $e->getMessage(), "\n"; }
echo "tryAcquirePermits when full: ", var_export($d2->tryAcquirePermits('s', 1), true), "\n";
echo "endRequest released: ", DistLock::endRequest(), "\n";
foreach ([[0, 1], [2, 3], [1, 0]] as [$limit, $n]) {
    try { $d->acquirePermits('s', $limit, $n); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
}
@unlink($atFile);
echo "left behind: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_401:');
?>
--EXPECTF--
8 processes x %d acquisitions of 1 of 2 permits, more than 2 inside: 0 processes saw it (exit=0)
left after: []
signal=9: the dead holder's permit came back at its lease end (about 1 s): true
permits(): {"holders":2,"used":3}
exit=0, the waiter got 2 permits within 50 ms of the release: true
permits() when idle: {"holders":0,"used":0}
used in scope: 1, after it: 0
Could not acquire 1 of the 1 permits of "s" within 0.100 seconds
tryAcquirePermits when full: NULL
endRequest released: 1
DistLock::acquirePermits(): Argument #2 ($limit) must be between 1 and 1000000000
DistLock::acquirePermits(): Argument #3 ($permits) must be between 1 and $limit (2)
DistLock::acquirePermits(): Argument #3 ($permits) must be between 1 and $limit (1)
left behind: []

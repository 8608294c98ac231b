--TEST--
Keys: after every primitive's operations (mutex, fair mutex, shared, exclusive, permits, multi-lock), timed-out waits, killed waiters and killed holders, every key distlock left has a TTL, and once the longest has passed only the fencing counters remain
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork') || !function_exists('posix_kill')) die('skip pcntl/posix'); ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
require_once __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
// The killed waiters' and holders' times, scaled by the measured slowdown (at
// most 4: valgrind's, or a loaded machine's): under memcheck a fork copies
// valgrind's shadow memory, and five forks in a row could outlast a 1 s wait.
$slow = min(4.0, lc_slow());
$p = 'phpt_417:';
raw_redis_del_prefix($p);
$opt = ['prefix' => $p, 'fencing' => true];
$mutex = new DistLock($uri, $opt);
$fair = new DistLock($uri, $opt + ['fair' => true]);
$other = new DistLock($uri, $opt);
$otherFair = new DistLock($uri, $opt + ['fair' => true]);

function timed_out(callable $fn): string
{
    try { $fn(); return 'granted'; } catch (DistLock\LockTimeoutException $e) { return 'timed out'; }
}

// 1. Plain cycles and timed-out waits, every kind.
foreach (['mutex' => [$mutex, $other], 'fair' => [$fair, $otherFair]] as $kind => [$a, $b]) {
    $a->tryLock("$kind:cycle", 5)->release();
    $l = $a->lock("$kind:held", 5);
    echo "$kind wait: ", timed_out(fn() => $b->lock("$kind:held", 5, 0.2)), "\n";
    $l->release();
}
$s1 = $mutex->lockShared('rw', 5);
$s2 = $other->lockShared('rw', 5);
$writer = new DistLock($uri, $opt);   // holds nothing: $mutex's own request would be an upgrade (issue 37.1)
echo "exclusive wait: ", timed_out(fn() => $writer->lockExclusive('rw', 5, 0.2)), "\n";
$s1->release(); $s2->release();
$x = $mutex->lockExclusive('rw', 5);
echo "shared wait: ", timed_out(fn() => $other->lockShared('rw', 5, 0.2)), "\n";
$x->release();
$q1 = $mutex->acquirePermits('sem', 2, 1, 5);
$q2 = $other->acquirePermits('sem', 2, 1, 5);
echo "permit wait: ", timed_out(fn() => $mutex->acquirePermits('sem', 2, 1, 5, 0.2)), "\n";
$q1->release(); $q2->release();
$other->acquirePermits('sem2', 3, 2, 5)->release();
$all = $mutex->lockAll(['m:a', 'm:b', 'm:c'], 5);
var_dump($other->tryLockAll(['m:c', 'm:d'], 5));
$mutex->releaseAll($all);

// 2. Killed waiters: a child waits on a held name and is SIGKILLed while it
// waits, each 0.3 s (scaled) after its fork, well within its 1 s (scaled) wait.
$w = 1.0 * $slow;
$waits = [
    'mutex' => fn() => (new DistLock($uri, $opt))->lock('kw:mutex', 1, $w),
    'fair' => fn() => (new DistLock($uri, $opt + ['fair' => true]))->lock('kw:fair', 1, $w),
    'exclusive' => fn() => (new DistLock($uri, $opt))->lockExclusive('kw:rw', 1, $w),
    'shared' => fn() => (new DistLock($uri, $opt))->lockShared('kw:rw2', 1, $w),
    'permits' => fn() => (new DistLock($uri, $opt))->acquirePermits('kw:sem', 1, 1, 1, $w),
];
// Held until the five waiters are killed, one after another (about 1.5 s, scaled).
$h = (int)ceil(5 * $slow);
$holds = [$mutex->lock('kw:mutex', $h), $fair->lock('kw:fair', $h), $mutex->lockShared('kw:rw', $h),
    $mutex->lockExclusive('kw:rw2', $h), $mutex->acquirePermits('kw:sem', 1, 1, $h)];
foreach ($waits as $kind => $fn) {
    $pid = fork_child(function () use ($fn) { $fn(); return 3; });
    usleep((int)(300000 * $slow));
    posix_kill($pid, SIGKILL);
    echo "waiter $kind: ", wait_child($pid), "\n";
}
foreach ($holds as $h) $h->release();

// 3. Killed holders: a child takes a lease (TTL 1 s, scaled) and is SIGKILLed holding it.
$t = (int)ceil($slow);
$takes = [
    'mutex' => fn() => (new DistLock($uri, $opt))->lock('kh:mutex', $t)->detach(),
    'fair' => fn() => (new DistLock($uri, $opt + ['fair' => true]))->lock('kh:fair', $t)->detach(),
    'exclusive' => fn() => (new DistLock($uri, $opt))->lockExclusive('kh:rw', $t)->detach(),
    'shared' => fn() => (new DistLock($uri, $opt))->lockShared('kh:rw2', $t)->detach(),
    'permits' => fn() => (new DistLock($uri, $opt))->acquirePermits('kh:sem', 3, 2, $t)->detach(),
    'multi' => fn() => array_map(fn($l) => $l->detach(), (new DistLock($uri, $opt))->lockAll(['kh:a', 'kh:b'], $t)),
];
foreach ($takes as $kind => $fn) {
    $pid = fork_child(function () use ($fn) { $fn(); posix_kill(getmypid(), SIGKILL); return 3; });
    echo "holder $kind: ", wait_child($pid), ", held: ", var_export($other->isLocked(str_starts_with($kind, 'multi') ? 'kh:a' : "kh:" . ($kind === 'exclusive' ? 'rw' : ($kind === 'shared' ? 'rw2' : ($kind === 'permits' ? 'sem' : $kind)))), true), "\n";
}

// 4. Every key left has a TTL, except the fencing counters; after the longest, only they remain.
$isFence = fn(string $k) => str_starts_with($k, $p . 'distlock:fence');
$longest = 0;
$noTtl = [];
foreach (raw_redis('KEYS', $p . '*') as $k) {
    if ($isFence($k)) continue;
    $pttl = raw_redis('PTTL', $k);
    if ($pttl < 0) $noTtl[] = $k;
    $longest = max($longest, $pttl);
}
echo "keys without a TTL: ", json_encode($noTtl), "\n";
echo "longest TTL within 12 s: ", var_export($longest <= 12000, true), "\n";
usleep(($longest + 200) * 1000);
$left = raw_redis('KEYS', $p . '*');
echo "left after the longest TTL: ", json_encode(array_values(array_filter($left, fn($k) => !$isFence($k)))), "\n";
echo "fencing counters left: ", count($left) > 0 ? 'some' : 'none', "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_417:');
?>
--EXPECT--
mutex wait: timed out
fair wait: timed out
exclusive wait: timed out
shared wait: timed out
permit wait: timed out
NULL
waiter mutex: signal=9
waiter fair: signal=9
waiter exclusive: signal=9
waiter shared: signal=9
waiter permits: signal=9
holder mutex: signal=9, held: true
holder fair: signal=9, held: true
holder exclusive: signal=9, held: true
holder shared: signal=9, held: true
holder permits: signal=9, held: true
holder multi: signal=9, held: true
keys without a TTL: []
longest TTL within 12 s: true
left after the longest TTL: []
fencing counters left: some

--TEST--
A stalled server (SIGSTOP): every operation ends within its call's bound (`timeout`, or max(wait, timeout)) whatever it still owes (an undo, a cancel, a release's second attempt); the next call reads no late reply; an undone lease never outlives its TTL
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
require __DIR__ . '/inc/proc.inc';
if (redis_server_bin() === null) die('skip redis-server not found');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
// a private server: SIGSTOP must not pause the tests running in parallel
$port = start_test_redis('310');
$pid = (int)trim((string)file_get_contents(test_redis_dir('310') . "/$port.pid"));
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$timeout = 0.5;
// Before issue 27.3 every operation here took about 2x its bound (3x for the
// multi-locks): the undo of the acquire, or the release's second attempt,
// waited for a timeout of its own. The margin covers a loaded machine and valgrind.
$margin = is_valgrind() ? 0.40 : 0.20;
$ttl = 2.0;

$ops = [
    // name => [wait (s, null: not waiting), fn(DistLock, Lock $held)]
    'tryLock' => [null, fn($d, $h) => $d->tryLock('a', $ttl)],
    'lock(wait: 0)' => [null, fn($d, $h) => $d->lock('a', $ttl, 0)],
    'lock(wait: 1)' => [1.0, fn($d, $h) => $d->lock('a', $ttl, 1.0)],
    'tryLockShared' => [null, fn($d, $h) => $d->tryLockShared('s', $ttl)],
    'lockShared(wait: 0)' => [null, fn($d, $h) => $d->lockShared('s', $ttl, 0)],
    'tryLockExclusive' => [null, fn($d, $h) => $d->tryLockExclusive('s', $ttl)],
    'tryAcquirePermits' => [null, fn($d, $h) => $d->tryAcquirePermits('p', 3, 1, $ttl)],
    'acquirePermits(wait: 1)' => [1.0, fn($d, $h) => $d->acquirePermits('p', 3, 1, $ttl, 1.0)],
    'tryLockAll' => [null, fn($d, $h) => $d->tryLockAll(['m1', 'm2', 'm3'], $ttl)],
    'lockAll(wait: 1)' => [1.0, fn($d, $h) => $d->lockAll(['m1', 'm2', 'm3'], $ttl, 1.0)],
    'synchronized' => [null, fn($d, $h) => $d->synchronized('y', fn() => 1, $ttl, 0)],
    'Lock::release' => [null, fn($d, $h) => $h->release()],
    'Lock::refresh' => [null, fn($d, $h) => $h->refresh()],
    'release(name, token)' => [null, fn($d, $h) => $d->release('h', $h->token())],
    'refresh(name, token)' => [null, fn($d, $h) => $d->refresh('h', $h->token())],
    'releaseAll' => [null, fn($d, $h) => $d->releaseAll([$h])],
    'restore' => [null, fn($d, $h) => $d->restore('h', $h->token())],
    'status' => [null, fn($d, $h) => $d->status('h')],
    'isLocked' => [null, fn($d, $h) => $d->isLocked('h')],
    'owner' => [null, fn($d, $h) => $d->owner('h')],
    'permits' => [null, fn($d, $h) => $d->permits('p')],
    'forceRelease' => [null, fn($d, $h) => $d->forceRelease('z')],
];
$i = 0;
foreach ($ops as $name => [$wait, $op]) {
    $prefix = 'phpt_310:' . $i++ . ':';
    $d = new DistLock($uri, ['prefix' => $prefix, 'timeout' => $timeout, 'watchdog' => false]);
    $held = $d->tryLock('h', 30);                  // a first successful call
    posix_kill($pid, SIGSTOP);
    $t = hrtime(true);
    $msg = null;
    try {
        $op($d, $held);
        $el = (hrtime(true) - $t) / 1e9;
        $result = 'no exception';
    } catch (DistLock\ConnectionException $e) {
        $el = (hrtime(true) - $t) / 1e9;
        $result = 'ConnectionException';
        $msg = $e->getMessage();
    }
    unset($e);                                      // its trace holds $d and $held
    posix_kill($pid, SIGCONT);
    $bound = max($wait ?? 0.0, $timeout);
    $within = $el <= $bound + $margin;
    // the message names the bound that ended the call, in the same words for every operation: the
    // call's own, or `timeout` when a waiting call's round trip was not answered within it, which
    // ends the call (issue 37.2; phpt 311 measures each call against the bound its message names)
    $named = $msg !== null && (str_contains($msg, sprintf("this call's %.3f s bound (%s)", $bound, $wait > $timeout ? 'max(wait, timeout)' : 'timeout'))
                               || ($wait !== null && str_contains($msg, sprintf("this call's %.3f s bound (timeout)", $timeout))));
    echo "$name: $result", $within ? ', within its bound' : sprintf(', %.3f s for a %.3f s bound', $el, $bound),
        $named ? ', the bound named' : ", message: $msg", "\n";
    // the next call on the same instance reads its own replies, not a late one
    $probe = $d->tryLock('probe', 30);
    $ok = $probe !== null && $d->owner('probe') === $probe->token() && $d->isLocked('probe') && $probe->release();
    if (!$ok) echo "  the next call went wrong\n";
    // nothing is left without a TTL, nor longer than asked (the undo may run or not: the TTL ends it)
    foreach ($raw->cmd('KEYS', $prefix . '*') ?: [] as $k) {
        $pttl = $raw->cmd('PTTL', $k);
        if ($pttl < 0 && !str_contains($k, 'fence')) {
            echo "  key $k with PTTL $pttl\n";
        }
    }
    unset($held, $probe, $d);
}
// every acquire above was undone or has expired by now: only the held names' keys (30 s) may be left
usleep((int)(($ttl + 0.3) * 1e6));
$left = [];
foreach ($raw->cmd('KEYS', 'phpt_310:*') ?: [] as $k) {
    if (!preg_match('/:h(\{|$)/', $k) && !str_contains($k, 'fence')) $left[] = $k;
}
echo "acquired names left after their TTL: ", json_encode($left), "\n";
stop_test_redis_all('310');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('310');
?>
--EXPECT--
tryLock: ConnectionException, within its bound, the bound named
lock(wait: 0): ConnectionException, within its bound, the bound named
lock(wait: 1): ConnectionException, within its bound, the bound named
tryLockShared: ConnectionException, within its bound, the bound named
lockShared(wait: 0): ConnectionException, within its bound, the bound named
tryLockExclusive: ConnectionException, within its bound, the bound named
tryAcquirePermits: ConnectionException, within its bound, the bound named
acquirePermits(wait: 1): ConnectionException, within its bound, the bound named
tryLockAll: ConnectionException, within its bound, the bound named
lockAll(wait: 1): ConnectionException, within its bound, the bound named
synchronized: ConnectionException, within its bound, the bound named
Lock::release: ConnectionException, within its bound, the bound named
Lock::refresh: ConnectionException, within its bound, the bound named
release(name, token): ConnectionException, within its bound, the bound named
refresh(name, token): ConnectionException, within its bound, the bound named
releaseAll: ConnectionException, within its bound, the bound named
restore: ConnectionException, within its bound, the bound named
status: ConnectionException, within its bound, the bound named
isLocked: ConnectionException, within its bound, the bound named
owner: ConnectionException, within its bound, the bound named
permits: ConnectionException, within its bound, the bound named
forceRelease: ConnectionException, within its bound, the bound named
acquired names left after their TTL: []

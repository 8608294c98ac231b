--TEST--
One name, one kind: a name held as a mutex, a multi-lock member, shared, exclusive or a semaphore (one holder, two holders) is never granted under another kind; every other kind's try and wait fail at once with LockKindException naming the name and both kinds; release/refresh/restore by token across kinds too; a foreign ZSET holder (symfony's RedisStore) is held, not an error; the connection works after and no connection error is counted
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_407:';
raw_redis_del_prefix($p);
$d = new DistLock($uri, ['prefix' => $p]);   // the holder
$e = new DistLock($uri, ['prefix' => $p]);   // the other caller
$errors0 = $e->stats()['connection_errors'] + $d->stats()['connection_errors'];

function outcome(callable $f): string
{
    $t0 = microtime(true);
    try {
        $r = $f();
        $what = $r === null ? 'null' : (is_array($r) ? 'granted' : (is_bool($r) ? var_export($r, true) : 'granted'));
        if ($r instanceof DistLock\Lock) $r->release();
        if (is_array($r)) foreach ($r as $l) $l->release();
    } catch (DistLock\LockKindException $x) {
        $what = 'LockKindException: ' . $x->getMessage();
    } catch (Throwable $x) {
        $what = get_class($x) . ': ' . $x->getMessage();
    }
    if (microtime(true) - $t0 > 0.9) $what .= ' (waited)';   // a wait of 1 s waited; a kind conflict fails at once
    return $what;
}

// holder => [its kind, how it is taken]
$holders = [
    'mutex' => ['mutex', fn () => [$d->lock('x', 30)]],
    'multi-lock member' => ['mutex', fn () => $d->lockAll(['w', 'x'], 30)],
    'shared' => ['rw', fn () => [$d->lockShared('x', 30)]],
    'exclusive' => ['rw', fn () => [$d->lockExclusive('x', 30)]],
    'semaphore, one holder' => ['sem', fn () => [$d->acquirePermits('x', 3, 1, 30)]],
    'semaphore, two holders' => ['sem', fn () => [$d->acquirePermits('x', 3, 1, 30), $d->acquirePermits('x', 3, 1, 30)]],
];
// by the holder's token, as another kind: [kind, call]
$by_token = [
    'release' => ['mutex', fn ($t) => $e->release('x', $t)],
    'refresh' => ['mutex', fn ($t) => $e->refresh('x', $t, 10)],
    'restore' => ['mutex', fn ($t) => $e->restore('x', $t)],
    'restoreShared' => ['rw', fn ($t) => $e->restoreShared('x', $t)],
    'restoreExclusive' => ['rw', fn ($t) => $e->restoreExclusive('x', $t)],
    'restorePermits' => ['sem', fn ($t) => $e->restorePermits('x', $t)],
];
$askers = [
    'tryLock' => fn () => $e->tryLock('x'),
    'lock(wait: 1)' => fn () => $e->lock('x', 10, 1),
    'synchronized' => fn () => $e->synchronized('x', fn () => 'ran', 10, 1),
    'tryLockAll' => fn () => $e->tryLockAll(['x', 'z']),
    'lockAll(wait: 1)' => fn () => $e->lockAll(['x', 'z'], 10, 1),
    'tryLockShared' => fn () => $e->tryLockShared('x'),
    'lockShared(wait: 1)' => fn () => $e->lockShared('x', 10, 1),
    'tryLockExclusive' => fn () => $e->tryLockExclusive('x'),
    'lockExclusive(wait: 1)' => fn () => $e->lockExclusive('x', 10, 1),
    'tryAcquirePermits' => fn () => $e->tryAcquirePermits('x', 3),
    'acquirePermits(wait: 1)' => fn () => $e->acquirePermits('x', 3, 1, 10, 1),
];
foreach ($holders as $hk => [$kind, $take]) {
    echo "== held as $hk\n";
    $held = $take();
    foreach ($askers as $ak => $ask) {
        echo "$ak: ", outcome($ask), "\n";
    }
    $tok = $held[count($held) - 1]->token();
    foreach ($by_token as $bk => [$bkind, $call]) {
        if ($bkind !== $kind) echo "$bk by token: ", outcome(fn () => $call($tok)), "\n";
    }
    foreach ($held as $h) {
        if (!$h->release()) echo "the holder's release failed\n";
    }
    if (raw_redis('EXISTS', $p . 'x') !== 0) echo "K left behind\n";
}

echo "== the key tells the kind\n";
$m = $d->lock('x');
echo "mutex: ", raw_redis('GET', $p . 'x') === $m->token() ? 'token' : 'other', "\n";
$m->release();
$s = $d->lockShared('x', 20);
echo "shared: ", json_encode(raw_redis('GET', $p . 'x')), ", ttl ", raw_redis('PTTL', $p . 'x') > 19000 ? 'the lease' : 'other', "\n";
$s->release();
$w = $d->lockExclusive('x');
echo "exclusive: ", raw_redis('GET', $p . 'x') === "\0W" . $w->token() ? '\0W + token' : 'other', "\n";
$w->release();
$a = $d->acquirePermits('x', 3);
echo "semaphore: ", raw_redis('GET', $p . 'x') === "\0S" . $a->token() ? '\0S + token' : 'other', "\n";
$b = $d->acquirePermits('x', 3);
echo "semaphore, two holders: ", raw_redis('TYPE', $p . 'x'), ", marker ", raw_redis('ZSCORE', $p . 'x', "\0S"), "\n";
$a->release();
$b->release();
echo "after the last holder: ", raw_redis('EXISTS', $p . 'x'), "\n";

echo "== a foreign holder: symfony's RedisStore shape (a ZSET with a __write__ member)\n";
raw_redis('ZADD', $p . 'x', '1', '__write__');
raw_redis('PEXPIRE', $p . 'x', '30000');
foreach ($askers as $ak => $ask) {
    if (strpos($ak, 'wait') !== false || $ak === 'synchronized') continue;
    echo "$ak: ", outcome($ask), "\n";
}
echo "lock(wait: 0.2): ", outcome(fn () => $e->lock('x', 10, 0.2)), "\n";
echo "release by token: ", outcome(fn () => $e->release('x', 'some-token')), "\n";
echo "restore: ", outcome(fn () => $e->restore('x', 'some-token')), "\n";
echo "untouched: ", raw_redis('ZCARD', $p . 'x'), "\n";
raw_redis('DEL', $p . 'x');

echo "== held here under one kind, asked here under another\n";
$s = $d->lockShared('x');
echo "lock: ", outcome(fn () => $d->lock('x')), "\n";
echo "tryLockExclusive (its own shared lease holds it: the same kind, upgraded, issue 37.1): ", outcome(fn () => $d->tryLockExclusive('x')), "\n";
$s->release();
$m = $d->lock('x');
echo "lockExclusive: ", outcome(fn () => $d->lockExclusive('x')), "\n";
$m->release();

echo "== a token beginning with NUL is refused\n";
foreach ([
    fn () => $e->tryLock('y', 10, "\0W"),
    fn () => $e->lockShared('y', 10, 1, "\0R"),
    fn () => $e->acquirePermits('y', 2, 1, 10, 1, "\0Sx"),
    fn () => $e->release('y', "\0x"),
    fn () => $e->refresh('y', "\0x"),
    fn () => $e->restore('y', "\0x"),
    fn () => $e->restoreShared('y', "\0x"),
    fn () => $e->unlockY('1', "\0x"),
] as $f) {
    echo outcome($f), "\n";
}

echo "== afterwards\n";
$m = $e->tryLock('x');
echo "the connection works: ", $m ? 'yes' : 'no', "\n";
$m->release();
echo "connection errors counted: ", $e->stats()['connection_errors'] + $d->stats()['connection_errors'] - $errors0, "\n";
echo "keys left: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
?>
--EXPECT--
== held as mutex
tryLock: null
lock(wait: 1): DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
synchronized: DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
tryLockAll: null
lockAll(wait: 1): DistLock\LockTimeoutException: Could not acquire all 2 locks ("x", ...) within 1.000 seconds (waited)
tryLockShared: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
lockShared(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
tryLockExclusive: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
lockExclusive(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
tryAcquirePermits: LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
acquirePermits(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
restoreShared by token: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
restoreExclusive by token: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
restorePermits by token: LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
== held as multi-lock member
tryLock: null
lock(wait: 1): DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
synchronized: DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
tryLockAll: null
lockAll(wait: 1): DistLock\LockTimeoutException: Could not acquire all 2 locks ("x", ...) within 1.000 seconds (waited)
tryLockShared: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
lockShared(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
tryLockExclusive: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
lockExclusive(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
tryAcquirePermits: LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
acquirePermits(wait: 1): LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
restoreShared by token: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
restoreExclusive by token: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
restorePermits by token: LockKindException: "x" is held as a mutex; it was asked for as a semaphore (one name, one kind)
== held as shared
tryLock: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lock(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
synchronized: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
tryLockAll: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lockAll(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
tryLockShared: granted
lockShared(wait: 1): granted
tryLockExclusive: null
lockExclusive(wait: 1): DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
tryAcquirePermits: LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
acquirePermits(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
release by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
refresh by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
restore by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
restorePermits by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
== held as exclusive
tryLock: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lock(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
synchronized: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
tryLockAll: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
lockAll(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
tryLockShared: null
lockShared(wait: 1): DistLock\LockTimeoutException: Could not acquire a shared lock on "x" within 1.000 seconds (waited)
tryLockExclusive: null
lockExclusive(wait: 1): DistLock\LockTimeoutException: Could not acquire the lock "x" within 1.000 seconds (waited)
tryAcquirePermits: LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
acquirePermits(wait: 1): LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
release by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
refresh by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
restore by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
restorePermits by token: LockKindException: "x" is held as a readers-writer lock; it was asked for as a semaphore (one name, one kind)
== held as semaphore, one holder
tryLock: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lock(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
synchronized: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
tryLockAll: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lockAll(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
tryLockShared: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
lockShared(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
tryLockExclusive: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
lockExclusive(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
tryAcquirePermits: granted
acquirePermits(wait: 1): granted
release by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
refresh by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
restore by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
restoreShared by token: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
restoreExclusive by token: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
== held as semaphore, two holders
tryLock: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lock(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
synchronized: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
tryLockAll: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
lockAll(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
tryLockShared: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
lockShared(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
tryLockExclusive: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
lockExclusive(wait: 1): LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
tryAcquirePermits: granted
acquirePermits(wait: 1): granted
release by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
refresh by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
restore by token: LockKindException: "x" is held as a semaphore; it was asked for as a mutex (one name, one kind)
restoreShared by token: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
restoreExclusive by token: LockKindException: "x" is held as a semaphore; it was asked for as a readers-writer lock (one name, one kind)
== the key tells the kind
mutex: token
shared: "\u0000R", ttl the lease
exclusive: \0W + token
semaphore: \0S + token
semaphore, two holders: zset, marker inf
after the last holder: 0
== a foreign holder: symfony's RedisStore shape (a ZSET with a __write__ member)
tryLock: null
tryLockAll: null
tryLockShared: null
tryLockExclusive: null
tryAcquirePermits: null
lock(wait: 0.2): DistLock\LockTimeoutException: Could not acquire the lock "x" within 0.200 seconds
release by token: false
restore: DistLock\LockLostException: The lock "x" is not held with the given token
untouched: 1
== held here under one kind, asked here under another
lock: LockKindException: "x" is held as a readers-writer lock; it was asked for as a mutex (one name, one kind)
tryLockExclusive (its own shared lease holds it: the same kind, upgraded, issue 37.1): granted
lockExclusive: LockKindException: "x" is held as a mutex; it was asked for as a readers-writer lock (one name, one kind)
== a token beginning with NUL is refused
ValueError: DistLock::tryLock(): Argument #3 ($token) must not begin with a NUL byte
ValueError: DistLock::lockShared(): Argument #4 ($token) must not begin with a NUL byte
ValueError: DistLock::acquirePermits(): Argument #6 ($token) must not begin with a NUL byte
ValueError: DistLock::release(): Argument #2 ($token) must not begin with a NUL byte
ValueError: DistLock::refresh(): Argument #2 ($token) must not begin with a NUL byte
ValueError: DistLock::restore(): Argument #2 ($token) must not begin with a NUL byte
ValueError: DistLock::restoreShared(): Argument #2 ($token) must not begin with a NUL byte
ValueError: DistLock::unlockY(): Argument #2 ($token) must not begin with a NUL byte
== afterwards
the connection works: yes
connection errors counted: 0
keys left: []
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_407:');
?>

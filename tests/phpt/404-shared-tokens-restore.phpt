--TEST--
Shared locks by token: lockShared()/lockExclusive() take the caller's token; restoreShared()/restoreExclusive() adopt a lease by token in another process (promote, demote, release there); errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_404:';
raw_redis_del_prefix($p);
$dl = new DistLock($uri, ['prefix' => $p]);
$readers = $p . 'n{' . $p . 'n}:readers';

$a = $dl->tryLockShared('n', 10, token: 'token-a');
echo "a: ", $a->token(), ", detached: ", $a->detach(), "\n";
$b = $dl->lockShared('n', 10, 1, token: 'token-b');
$b->detach();
echo "readers: ", json_encode(raw_redis('ZRANGE', $readers, 0, -1)), "\n";
var_dump($dl->tryLockExclusive('n', 10, token: 'token-c'));

// another process adopts a's shared lease by its token: promotion fails while b reads, then works
$pid = fork_child(function () use ($uri, $p) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $h = $d->restoreShared('n', 'token-a');
    $first = $h->promote(10);
    $d->restoreShared('n', 'token-b')->release();
    $second = $h->promote(10);
    raw_redis_conn(true);
    echo "child: promote beside b: ", var_export($first, true), ", alone: ", var_export($second, true),
        ", key holds a: ", var_export(raw_redis('GET', $p . 'n') === "\0W" . 'token-a', true), "\n";
    $h->detach();
    return 0;
});
$rc = wait_child($pid);
echo "child: $rc\n";
try {
    $dl->restoreShared('n', 'token-a');
} catch (DistLock\LockLostException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
$x = $dl->restoreExclusive('n', 'token-a');
$x->detach();   // else the restoreShared() below would be a second handle on this one lease
echo "exclusive lifetime > 5 s: ", var_export($x->remainingLifetime() > 5, true), ", demote: ", var_export($x->demote(10), true), "\n";
$s = $dl->restoreShared('n', 'token-a');
echo "readers: ", json_encode(raw_redis('ZRANGE', $readers, 0, -1)), ", release: ", var_export($s->release(), true), "\n";

// a token that reads already: granted again, the lease reset to the new ttl
$r1 = $dl->tryLockShared('n', 5, token: 'token-r');
$r2 = $dl->tryLockShared('n', 30, token: 'token-r');
echo "again: ", var_export($r2 !== null, true), ", ttl now > 20 s: ", var_export($r2->remainingLifetime() > 20, true), "\n";
$r2->release();
unset($r1, $r2);

foreach ([
    fn () => $dl->restoreExclusive('n', 'nobody'),
    fn () => $dl->tryLockShared('n', 10, token: ''),
    fn () => $dl->lockExclusive('n', 10, 1, token: str_repeat('t', 129)),
    fn () => $dl->restoreShared('', 'x'),
    fn () => (new DistLock(['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['connect_timeout' => 0.1]))->restoreShared('n', 'x'),
] as $f) {
    try {
        $f();
        echo "no error\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
echo "left behind: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_404:');
?>
--EXPECTF--
a: token-a, detached: token-a
readers: ["token-a","token-b"]
NULL
child: promote beside b: false, alone: true, key holds a: true
child: exit=0
DistLock\LockLostException: The lock "n" is not held shared with the given token
exclusive lifetime > 5 s: true, demote: true
readers: ["token-a"], release: true
again: true, ttl now > 20 s: true
DistLock\LockLostException: The lock "n" is not held exclusively with the given token
ValueError: DistLock::tryLockShared(): Argument #3 ($token) must be between 1 and 128 bytes long
ValueError: DistLock::lockExclusive(): Argument #4 ($token) must be between 1 and 128 bytes long
ValueError: DistLock::restoreShared(): Argument #1 ($name) must not be empty
ValueError: DistLock::restoreShared(): shared locks are not offered on Redlock (a list of masters): %s
left behind: []

--TEST--
Lazy connect: construction never connects; the first operation throws ConnectionException naming host:port
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$port = free_port();
$t = microtime(true);
$d = new DistLock("redis://127.0.0.1:$port", ['connect_timeout' => 0.5]);
echo "constructed\n";
$before = $d->stats()['connection_errors'];
$ops = [
    'lock' => fn() => $d->lock('phpt_009:x', 1, 0.5),
    'tryLock' => fn() => $d->tryLock('phpt_009:x'),
    'synchronized' => fn() => $d->synchronized('phpt_009:x', fn() => 'ran'),
    'restore' => fn() => $d->restore('phpt_009:x', str_repeat('a', 32)),
    'isLocked' => fn() => $d->isLocked('phpt_009:x'),
    'forceRelease' => fn() => $d->forceRelease('phpt_009:x'),
    'lockAccount' => fn() => $d->lockAccount(1),
    'tryLockAccount' => fn() => $d->tryLockAccount(1),
    'unlockAccount' => fn() => $d->unlockAccount(1, str_repeat('a', 32)),
];
foreach ($ops as $name => $op) {
    try {
        $r = $op();
        echo "$name: returned ", get_debug_type($r), "\n";
    } catch (Throwable $e) {
        echo "$name: ", get_class($e), str_contains($e->getMessage(), "127.0.0.1:$port") ? ' names host:port' : ' (host:port missing): ' . $e->getMessage(), "\n";
    }
}
try { $d->lock('phpt_009:x'); } catch (DistLock\ConnectionException $e) {
    echo str_replace((string)$port, 'PORT', $e->getMessage()), "\n";
}
$errors = $d->stats()['connection_errors'] - $before;
echo "connection_errors grew by >= 9: ", var_export($errors >= 9, true), "\n";
echo "fast (< 2 s): ", var_export(microtime(true) - $t < 2, true), "\n";

// a server that comes up later is used by the same instance: nothing is cached from the failure
$d2 = new DistLock(test_uri(), ['prefix' => 'phpt_009:']);
$l = $d2->lock('later');
var_dump(raw_redis('EXISTS', 'phpt_009:later'), $l->release());

// a unix socket that does not exist
$u = new DistLock('unix:///tmp/phpt_009_missing.sock');
try { $u->isLocked('x'); } catch (DistLock\ConnectionException $e) {
    echo "unix: ConnectionException", str_contains($e->getMessage(), '/tmp/phpt_009_missing.sock') ? ' names path' : ': ' . $e->getMessage(), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_009:');
?>
--EXPECT--
constructed
lock: DistLock\ConnectionException names host:port
tryLock: DistLock\ConnectionException names host:port
synchronized: DistLock\ConnectionException names host:port
restore: DistLock\ConnectionException names host:port
isLocked: DistLock\ConnectionException names host:port
forceRelease: DistLock\ConnectionException names host:port
lockAccount: DistLock\ConnectionException names host:port
tryLockAccount: DistLock\ConnectionException names host:port
unlockAccount: DistLock\ConnectionException names host:port
Cannot connect to Redis at 127.0.0.1:PORT: Connection refused
connection_errors grew by >= 9: true
fast (< 2 s): true
int(1)
bool(true)
unix: ConnectionException names path

--TEST--
min_replicas: a multi-lock's grant waits for the replicas as every other grant does (WAIT in the same round trip); too few acknowledged: ReplicationException, and every name released again
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$p = 'phpt_414:';
raw_redis_del_prefix($p);
// The test server has no replica: WAIT 1 answers 0 after replica_timeout.
$d = new DistLock(test_uri(), ['prefix' => $p, 'min_replicas' => 1, 'replica_timeout' => 0.1]);
$free = new DistLock(test_uri(), ['prefix' => $p]);
foreach ([
    'lock' => fn() => $d->lock('a', 5, 0),
    'lockAll' => fn() => $d->lockAll(['a', 'b'], 5, 0.5),
    'tryLockAll' => fn() => $d->tryLockAll(['a', 'b'], 5),
    'tryLockAll fenced' => fn() => (new DistLock(test_uri(), ['prefix' => $p, 'min_replicas' => 1, 'replica_timeout' => 0.1, 'fencing' => true]))->tryLockAll(['a', 'b'], 5),
] as $what => $call) {
    try {
        $got = $call();
        echo "$what: granted\n";
    } catch (DistLock\ReplicationException $e) {
        echo "$what: ", get_class($e), ", ", str_contains($e->getMessage(), '0 of 1 replicas acknowledged') ? 'says why' : $e->getMessage(), "\n";
    }
    printf("  a %s, b %s\n", $free->isLocked('a') ? 'HELD' : 'free', $free->isLocked('b') ? 'HELD' : 'free');
}
// Without min_replicas the same multi-lock is granted.
$all = $free->tryLockAll(['a', 'b'], 5);
var_dump(count($all), $free->releaseAll($all));
?>
--CLEAN--
<?php require __DIR__ . '/inc/redis.inc'; raw_redis_del_prefix('phpt_414:'); ?>
--EXPECT--
lock: DistLock\ReplicationException, says why
  a free, b free
lockAll: DistLock\ReplicationException, says why
  a free, b free
tryLockAll: DistLock\ReplicationException, says why
  a free, b free
tryLockAll fenced: DistLock\ReplicationException, says why
  a free, b free
int(2)
int(2)

--TEST--
Waiting: a waiter that times out leaves nothing behind in Redis (default and fair mode), and the wake list carries a TTL
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$uri = test_uri();
$p = 'phpt_303:';
raw_redis_del_prefix($p);
foreach ([false, true] as $fair) {
    $holder = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
    $waiter = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
    $l = $holder->lock('w', 10);
    $keysWhileWaiting = null;
    try {
        $waiter->lock('w', 10, 0.2);
    } catch (DistLock\LockTimeoutException $e) {
        echo ($fair ? 'fair' : 'default'), ": timed out; ";
    }
    echo "keys: ", json_encode(raw_redis('KEYS', $p . '*')), "; ";
    $l->release();
    echo "after release: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
}
// a release with a live waiter pushes a wake token; the list is trimmed to one and expires
$holder = new DistLock($uri, ['prefix' => $p]);
$l = $holder->lock('x', 10);
raw_redis('ZADD', $p . 'x{' . $p . 'x}:waiters', (string)(time() * 1000 + 60000), 'someone');
$l->release();
$l = $holder->lock('x', 10);
$l->release();
$wake = $p . 'x{' . $p . 'x}:wake';
echo "wake list length: ", raw_redis('LLEN', $wake), ", with a TTL: ", var_export(raw_redis('PTTL', $wake) > 0, true), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_303:');
?>
--EXPECT--
default: timed out; keys: ["phpt_303:w"]; after release: []
fair: timed out; keys: ["phpt_303:w"]; after release: []
wake list length: 1, with a TTL: true

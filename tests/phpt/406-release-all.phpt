--TEST--
releaseAll(): the handles of a multi-lock (or any handles of the instance) released in one round trip, each as its release() would; shared and lost leases, fork, errors, and a failed round trip keeps every handle
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$uri = test_uri();
$p = 'phpt_406:';
raw_redis_del_prefix($p);
$d = new DistLock($uri, ['prefix' => $p, 'defer_release' => false]);

// 1. a multi-lock's handles, in one round trip: counted on a server of this test
// alone (the shared one serves tests running beside it)
$own = start_test_redis('406');
$solo = new DistLock("redis://127.0.0.1:$own", ['prefix' => $p]);
$info = RawConn::tcp('127.0.0.1', $own);
$reads = fn () => (int)preg_replace('/.*total_reads_processed:(\d+).*/s', '$1', $info->cmd('INFO', 'stats'));
$solo->releaseAll($solo->tryLockAll(['a', 'b', 'c'], 30));   // the server caches the scripts (a fresh one answers NOSCRIPT once)
$all = $solo->tryLockAll(['a', 'b', 'c'], 30);
$before = $reads();
$n = $solo->releaseAll($all);
$after = $reads();
// the server read two requests: the releases' pipeline and the INFO that counts
echo "released: $n, requests read by the server: ", $after - $before, ", keys left: ",
    $info->cmd('EXISTS', $p . 'a', $p . 'b', $p . 'c'), "\n";
echo "again: ", $solo->releaseAll($all), ", handles: ", json_encode(array_map(fn ($l) => $l->isAcquired(), $all)), "\n";

// 2. any kind of handle; a lost lease counts 0 (and as lost in stats()); the same handle twice once
$lock = $d->lock('m', 30);
$permit = $d->acquirePermits('s', 2, 1, 30);
$shared = $d->lockShared('r', 30);
$short = $d->lock('short', 0.2);
usleep(400000);
$st = $d->stats();
echo "mixed: ", $d->releaseAll([$lock, $permit, $shared, $short, $lock]), "; free now: ",
    json_encode([$d->isLocked('m'), $d->permits('s')['used'], raw_redis('EXISTS', $p . 'r{' . $p . 'r}:readers')]),
    "; stats released +", $d->stats()['released'] - $st['released'], ", lost +", $d->stats()['lost'] - $st['lost'], "\n";
echo "empty list: ", $d->releaseAll([]), "\n";

// 3. a handle of another process (fork) is not touched
$held = $d->lockAll(['f1', 'f2'], 30);
$pid = fork_child(function () use ($d, $held) { return $d->releaseAll($held); });
echo "the child released: ", wait_child($pid), ", still held: ", raw_redis('EXISTS', $p . 'f1', $p . 'f2'), "\n";
echo "the parent: ", $d->releaseAll($held), "\n";

// 4. bad input: a clear error, nothing released
$x = $d->lock('x', 30);
$other = new DistLock($uri, ['prefix' => $p]);
$y = $other->lock('y', 30);
foreach ([[$x, 'not a lock'], [$x, $y]] as $bad) {
    try {
        $d->releaseAll($bad);
    } catch (TypeError | ValueError $e) {
        echo get_class($e), ": ", $e->getMessage(), "\n";
    }
}
echo "x still held: ", raw_redis('EXISTS', $p . 'x'), "\n";
$d->releaseAll([$x]);
$other->releaseAll([$y]);

// 5. the round trip fails: ConnectionException, every handle kept; the next releaseAll() releases them
// (the timeout scales with the measured slowdown: it bounds two round trips through a PHP proxy, which
// failed once emulated on arm64, 14x slower, where it was a plain 0.3 s)
[, $port] = test_host_port();
$proxy = proxy_start((int)$port);
$q = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p, 'timeout' => 0.3 * lc_slow()]);
$two = $q->lockAll(['p1', 'p2'], 30);
proxy_mode($proxy, 'swallow');
try {
    $q->releaseAll($two);
} catch (DistLock\ConnectionException $e) {
    echo get_class($e), "; still held: ", raw_redis('EXISTS', $p . 'p1', $p . 'p2'), "\n";
}
proxy_mode($proxy, 'cut');
echo "after the network is back: ", $q->releaseAll($two), ", keys left: ", raw_redis('EXISTS', $p . 'p1', $p . 'p2'), "\n";
proxy_stop($proxy);
stop_test_redis_all('406');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
raw_redis_del_prefix('phpt_406:');
stop_test_redis_all('406');
?>
--EXPECT--
released: 3, requests read by the server: 2, keys left: 0
again: 0, handles: [false,false,false]
mixed: 3; free now: [false,0,0]; stats released +3, lost +1
empty list: 0
the child released: exit=0, still held: 2
the parent: 2
TypeError: DistLock::releaseAll(): Argument #1 ($locks) must contain only DistLock\Lock handles, string given
ValueError: DistLock::releaseAll(): Argument #1 ($locks) must contain only handles acquired through this DistLock instance
x still held: 1
DistLock\ConnectionException; still held: 2
after the network is back: 2, keys left: 0

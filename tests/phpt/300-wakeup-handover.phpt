--TEST--
Waiting without polling: a release wakes a blocked waiter at once (one round trip), and a waiter sends at most 3 requests during a 2 s wait
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$uri = test_uri();
$p = 'phpt_300:';
raw_redis_del_prefix($p);
$slow = is_valgrind() ? 20 : 1;

/* Top-level commands a waiter can send (commands inside scripts are counted apart by Redis as SET, ZADD...). */
function waiter_requests(): int {
    $n = 0;
    foreach (explode("\n", raw_redis('INFO', 'commandstats')) as $line) {
        foreach (['evalsha', 'eval', 'blpop'] as $c) {
            if (str_starts_with(trim($line), "cmdstat_$c:calls=")) $n += (int)substr(trim($line), strlen("cmdstat_$c:calls="));
        }
    }
    return $n;
}

// 1. hand-over latency: from the holder's release() to the waiter's lock() returning
$holder = new DistLock($uri, ['prefix' => $p]);
$lat = [];
for ($i = 0; $i < 5; $i++) {
    $l = $holder->lock('h', 10);
    $pid = fork_child(function () use ($uri, $p) {
        $d = new DistLock($uri, ['prefix' => $p]);
        $lk = $d->lock('h', 10, 10);
        $at = hrtime(true);
        $lk->release();
        raw_redis_conn(true);
        raw_redis('SET', $p . 'acquired_at', (string)$at);
        return 0;
    });
    usleep(200000 * $slow);              // the waiter is blocked on the wake list by now
    $releasedAt = hrtime(true);
    $l->release();
    echo wait_child($pid), " ";
    $lat[] = ((int)raw_redis('GET', $p . 'acquired_at') - $releasedAt) / 1e6;
}
sort($lat);
echo "\nmedian hand-over under 20 ms (polling libraries: 10-250 ms): ", var_export($lat[2] >= 0 && $lat[2] < 20 * $slow, true), "\n";

// 2. requests during a 2 s wait on a lock held all along
$l = $holder->lock('r', 30);
$before = waiter_requests();
$t = microtime(true);
$pid = fork_child(function () use ($uri, $p) {
    $d = new DistLock($uri, ['prefix' => $p]);
    try { $d->lock('r', 10, 2.0); return 1; } catch (DistLock\LockTimeoutException $e) { return 0; }
});
echo wait_child($pid), "\n";
$el = microtime(true) - $t;
echo "waited about 2 s: ", var_export($el >= 1.95 && $el < 2.0 + 1.5 * $slow, true), "\n";
echo "requests sent by the waiter (attempt, BLPOP, leave): ", waiter_requests() - $before, "\n";
$l->release();
echo "left behind: ", json_encode(raw_redis('KEYS', $p . 'r*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_300:');
?>
--EXPECT--
exit=0 exit=0 exit=0 exit=0 exit=0 
median hand-over under 20 ms (polling libraries: 10-250 ms): true
exit=0
waited about 2 s: true
requests sent by the waiter (attempt, BLPOP, leave): 3
left behind: []

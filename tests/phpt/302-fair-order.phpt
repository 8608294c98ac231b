--TEST--
Fair mode: strict FIFO hand-over to the longest waiter; newcomers queue behind; a waiter that gave up is skipped (each step waits for the server's queue, not for a guessed time); nothing is left behind
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_302:';
raw_redis_del_prefix($p);
$opts = ['prefix' => $p, 'fair' => true, 'fencing' => true];

$holder = new DistLock($uri, $opts);
$l = $holder->lock('q', 60);
$first = $l->fencingToken();
// each step waits for the queue as the server has it, not for a guessed time,
// so that the order holds on a loaded machine and under valgrind alike
$queue = fn () => raw_redis('ZRANGE', $p . 'q{' . $p . 'q}:queue', 0, -1);
$seen = [];
$pids = [];
// B, C, D, E queue in this order; C gives up after 1 s (before the release)
foreach (['B' => 60, 'C' => 1, 'D' => 60, 'E' => 60] as $who => $wait) {
    $pids[$who] = fork_child(function () use ($uri, $opts, $p, $who, $wait) {
        $d = new DistLock($uri, $opts);
        try {
            $lk = $d->lock('q', 60, $wait);
        } catch (DistLock\LockTimeoutException $e) {
            return 3;
        }
        raw_redis_conn(true);
        raw_redis('RPUSH', $p . 'order', $who . ':' . $lk->fencingToken());
        usleep(50000);
        $lk->release();
        return 0;
    });
    // a queue entry that was not there before is this child's
    $new = [];
    lc_wait_until(function () use ($queue, $seen, &$new) {
        $new = array_diff($queue(), $seen);
        return $new !== [];
    }, 60);
    echo "$who queued: ", count($new), "\n";
    $seen = array_merge($seen, $new);
}
echo "C gave up, 3 left in the queue: ", var_export(lc_wait_until(fn () => count($queue()) === 3, 60) !== null, true), "\n";
// a newcomer cannot jump the queue, not even with tryLock right after the release
$newcomer = new DistLock($uri, $opts);
$l->release();
var_dump($newcomer->tryLock('q'));
foreach ($pids as $who => $pid) echo "$who: ", wait_child($pid), "\n";
$order = raw_redis('LRANGE', $p . 'order', 0, -1);
echo "order: ", implode(' ', array_map(fn ($e) => explode(':', $e)[0], $order)), "\n";
$fences = array_map(fn ($e) => (int)explode(':', $e)[1], $order);
echo "fencing tokens grow along the hand-overs: ", var_export($fences[0] > $first && $fences[1] > $fences[0] && $fences[2] > $fences[1], true), "\n";
raw_redis('DEL', $p . 'order');
echo "left behind: ", json_encode(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_starts_with($k, $p . 'distlock:fence')))), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_302:');
?>
--EXPECT--
B queued: 1
C queued: 1
D queued: 1
E queued: 1
C gave up, 3 left in the queue: true
NULL
B: exit=0
C: exit=3
D: exit=0
E: exit=0
order: B D E
fencing tokens grow along the hand-overs: true
left behind: []

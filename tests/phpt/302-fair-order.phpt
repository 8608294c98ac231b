--TEST--
Fair mode: strict FIFO hand-over to the longest waiter; newcomers queue behind; a waiter that gave up is skipped; nothing is left behind
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
$slow = (is_valgrind() ? 10 : 1) * lc_load();   // and more on a busy machine
$opts = ['prefix' => $p, 'fair' => true, 'fencing' => true];

$holder = new DistLock($uri, $opts);
$l = $holder->lock('q', 10);
$first = $l->fencingToken();
$pids = [];
// B, C, D, E queue in this order; C gives up after 0.3 s (before the release)
foreach (['B' => 10, 'C' => 0.3, 'D' => 10, 'E' => 10] as $who => $wait) {
    $pids[$who] = fork_child(function () use ($uri, $opts, $p, $who, $wait) {
        $d = new DistLock($uri, $opts);
        try {
            $lk = $d->lock('q', 10, $wait);
        } catch (DistLock\LockTimeoutException $e) {
            return 3;
        }
        raw_redis_conn(true);
        raw_redis('RPUSH', $p . 'order', $who . ':' . $lk->fencingToken());
        usleep(50000);
        $lk->release();
        return 0;
    });
    usleep((int)(100000 * $slow));
}
usleep((int)(400000 * $slow));                 // C has given up by now
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
echo "left behind: ", json_encode(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_ends_with($k, ':fence')))), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_302:');
?>
--EXPECT--
NULL
B: exit=0
C: exit=3
D: exit=0
E: exit=0
order: B D E
fencing tokens grow along the hand-overs: true
left behind: []

--TEST--
Fair mode, polling fallback (server refuses BLPOP): a waiter that finds the hand-over by its next attempt holds it for its full ttl, with its fencing token
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$p = 'phpt_306:';
raw_redis_del_prefix($p);
raw_redis('ACL', 'SETUSER', 'phpt_306_noblpop', 'on', '>pw306', '~*', '+@all', '-blpop');
$uri = str_replace('redis://', 'redis://phpt_306_noblpop:pw306@', test_uri());
$slow = (is_valgrind() ? 10 : 1) * lc_load();   // and more on a busy machine
$opts = ['prefix' => $p, 'fair' => true, 'fencing' => true, 'retry_delay' => 0.05, 'retry_jitter' => 0.0];

$out = sys_get_temp_dir() . '/phpt_306.out.' . getmypid();   // this run's own: suites run at once on one machine
@unlink($out);
$holder = new DistLock($uri, $opts);
$l = $holder->lock('f', 30);
$pid = fork_child(function () use ($uri, $opts, $out) {
    $d = new DistLock($uri, $opts);
    $lk = $d->lock('f', 10, 60);               // polls; the hand-over is found by an attempt
    file_put_contents($out, sprintf("%.1f %d", $lk->remainingLifetime(), (int)($lk->fencingToken() !== null)));
    usleep(6000000);                           // holds well past the 3 s hand-over claim
    file_put_contents($out, ' ' . ($lk->isAcquired() ? 'held' : 'LOST'), FILE_APPEND);
    $lk->release();
    return 0;
});
usleep((int)(300000 * $slow));                        // the child is queued and polling
$l->release();                                 // hands over to it
for ($t = microtime(true); !is_file($out) && microtime(true) - $t < 30; ) usleep(10000);
usleep(3500000);                               // past the claim, inside the child's hold
$third = new DistLock(test_uri(), ['prefix' => $p, 'fair' => true]);
var_dump($third->tryLock('f'));                // nobody can take it meanwhile
echo wait_child($pid), "\n";
[$life, $fenced, $state] = explode(' ', file_get_contents($out));
echo "lease after the hand-over longer than the 3 s claim: ", var_export((float)$life > 5.0, true), "\n";
echo "fencing token: ", $fenced === '1' ? 'yes' : 'no', "\n";
echo "after 6 s: $state\n";
@unlink($out);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis('ACL', 'DELUSER', 'phpt_306_noblpop');
raw_redis_del_prefix('phpt_306:');
?>
--EXPECT--
NULL
exit=0
lease after the hand-over longer than the 3 s claim: true
fencing token: yes
after 6 s: held

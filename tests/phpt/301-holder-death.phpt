--TEST--
Waiting without polling: when the holder dies without releasing (SIGKILL), a blocked waiter gets the lock when the lease expires, not a poll interval later
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_301:';
raw_redis_del_prefix($p);
$slow = (is_valgrind() ? 10 : 1) * lc_load();   // and more on a busy machine
foreach ([false, true] as $fair) {
    $pid = fork_child(function () use ($uri, $p, $fair) {
        $d = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
        $held = $d->lock('d', 1.0);          // kept: a temporary would be released at once
        posix_kill(posix_getpid(), SIGKILL);   // dies holding it: no release, no request end
    });
    while (raw_redis('EXISTS', $p . 'd') !== 1) usleep(1000);
    $pttl = raw_redis('PTTL', $p . 'd');
    $t = microtime(true);
    $d = new DistLock($uri, ['prefix' => $p, 'fair' => $fair]);
    $l = $d->lock('d', 5, 5);
    $el = microtime(true) - $t;
    echo ($fair ? 'fair' : 'default'), ": ", wait_child($pid), ", acquired after the holder's lease: ",
        var_export($el * 1000 >= $pttl - 50, true), ", within 300 ms of its end: ",
        var_export($el * 1000 <= $pttl + 300 * $slow, true), "\n";
    $l->release();
}
echo "left behind: ", json_encode(raw_redis('KEYS', $p . '*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_301:');
?>
--EXPECT--
default: signal=9, acquired after the holder's lease: true, within 300 ms of its end: true
fair: signal=9, acquired after the holder's lease: true, within 300 ms of its end: true
left behind: []

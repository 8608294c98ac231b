--TEST--
Semaphores by token: acquirePermits() takes the caller's token; restorePermits() adopts the permits in another process, whose release hands them to a blocked waiter; errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_405:';
raw_redis_del_prefix($p);
$dl = new DistLock($uri, ['prefix' => $p]);

$a = $dl->tryAcquirePermits('s', 3, 2, 30, token: 'token-a');
echo "a: ", $a->token(), ", detached: ", $a->detach(), ", permits: ", json_encode($dl->permits('s')), "\n";
var_dump($dl->tryAcquirePermits('s', 3, 2, 30, token: 'token-b'));

// another process adopts a's permits by token, refreshes them, and releases them after 0.3 s
$pid = fork_child(function () use ($uri, $p) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $h = $d->restorePermits('s', 'token-a');
    $ok = $h->refresh(60) && $h->remainingLifetime() > 50;
    usleep(300000);
    return $ok && $h->release() ? 0 : 1;
});
// meanwhile b waits for 2 permits: woken by that release, not by its lease end (30 s)
$t0 = lc_now();
$b = $dl->acquirePermits('s', 3, 2, 30, 20 * lc_slow(), token: 'token-b');
echo "b after the child's release: ", var_export((($w = lc_now() - $t0) > 0.2) && $w < 10, true), ", token ", $b->token(), "\n";
echo "child: ", wait_child($pid), "\n";
echo "permits: ", json_encode($dl->permits('s')), "\n";

try {
    $dl->restorePermits('s', 'token-a');
} catch (DistLock\LockLostException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
$b->release();
foreach ([
    fn () => $dl->acquirePermits('s', 3, 1, 10, 1, token: ''),
    fn () => $dl->tryAcquirePermits('s', 3, 1, 10, token: str_repeat('t', 129)),
    fn () => $dl->restorePermits('s', ''),
    fn () => (new DistLock(['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['connect_timeout' => 0.1]))->restorePermits('s', 'x'),
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
raw_redis_del_prefix('phpt_405:');
?>
--EXPECTF--
a: token-a, detached: token-a, permits: {"holders":1,"used":2}
NULL
b after the child's release: true, token token-b
child: exit=0
permits: {"holders":1,"used":2}
DistLock\LockLostException: No permits of the semaphore "s" are held with the given token
ValueError: DistLock::acquirePermits(): Argument #6 ($token) must be between 1 and 128 bytes long
ValueError: DistLock::tryAcquirePermits(): Argument #5 ($token) must be between 1 and 128 bytes long
ValueError: DistLock::restorePermits(): Argument #2 ($token) must be between 1 and 128 bytes long
ValueError: DistLock::restorePermits(): semaphores are not offered on Redlock (a list of masters): %s
left behind: []

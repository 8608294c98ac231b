--TEST--
Deadlock detection (issue 47): no false report from a wait that has ended: a process that waited for b while holding a, was granted b and let it go again (its wait record not yet expired) waits for nothing, so a wait for a by the new holder of b is an ordinary wait that times out; the same after a wait that gave up at its deadline
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$p = 'phpt_423:';
$port = start_test_redis('423');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();
$dir = sys_get_temp_dir() . '/phpt_423_' . getmypid();
@mkdir($dir);

function blocked_clients(RawConn $raw): int
{
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

foreach (['granted' => 10, 'gave up' => 0.3] as $case => $wait) {
    // The child holds a and waits for b, which this process holds; the wait ends (granted
    // when we let b go; or at its own deadline); the child then keeps a, waiting for nothing.
    $d = new DistLock($uri, ['prefix' => $p]);
    $b = $d->lock('b', 30);
    $pid = fork_child(function () use ($uri, $p, $dir, $wait) {
        $c = new DistLock($uri, ['prefix' => $p]);
        $a = $c->lock('a', 30);
        try {
            $c->lock('b', 30, $wait)->release();
            $r = 'granted, released';
            file_put_contents("$dir/ended", (string)hrtime(true));
        } catch (DistLock\LockTimeoutException $e) {
            $r = get_class($e);
            file_put_contents("$dir/ended", (string)hrtime(true));
        }
        file_put_contents("$dir/child", $r);
        while (!file_exists("$dir/done")) usleep(2000);
        $a->release();
        return 0;
    });
    lc_wait_until(fn() => blocked_clients($raw) === 1, 10 * $slow);
    if ($wait > 1) $b->release();
    lc_wait_until(fn() => file_exists("$dir/child"), 10 * $slow);
    // (the record expires 3 s after the wait's last registration: on a machine slow enough to
    // get here later than that, it may be gone, and this case then proves less)
    $there = count($raw->cmd('KEYS', "{$p}b*:waitfor:*")) === 1;
    $late = (hrtime(true) - (int)file_get_contents("$dir/ended")) / 1e9 > 2.5;
    echo "$case: the child's wait: ", file_get_contents("$dir/child"), "; its record still there: ",
        var_export($there || $late, true), "\n";
    // This process holds b (again) and waits for a: the child waits for nothing.
    if ($wait > 1) $b = $d->lock('b', 30);
    try {
        $d->lock('a', 30, 0.3);
        echo "granted (wrong)\n";
    } catch (DistLock\LockTimeoutException $e) {
        echo "$case: ", get_class($e), "\n";
    }
    touch("$dir/done");
    wait_child($pid);
    $b->release();
    unlink("$dir/child");
    unlink("$dir/ended");
    unlink("$dir/done");
    $raw->cmd('FLUSHALL');
}
rmdir($dir);
stop_test_redis_all('423');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('423');
?>
--EXPECT--
granted: the child's wait: granted, released; its record still there: true
granted: DistLock\LockTimeoutException
gave up: the child's wait: DistLock\LockTimeoutException; its record still there: true
gave up: DistLock\LockTimeoutException

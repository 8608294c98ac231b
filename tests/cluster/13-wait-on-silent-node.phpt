--TEST--
Cluster: a wait whose master stops answering (SIGSTOP, shorter than cluster-node-timeout) once the waiter is blocked ends in LockTimeoutException naming the node it waited on and how long it answered nothing, with a ConnectionException as its previous (issue 45.2)
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS') || !function_exists('pcntl_fork')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set, or no pcntl'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/cluster.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
$opts = ['cluster' => true, 'prefix' => 'cl13:', 'timeout' => 1.0, 'watchdog' => false];
$h = new DistLock([cl_seeds()[0]], $opts);
$w = new DistLock([cl_seeds()[0]], $opts);
$held = $h->lock('x', 30);
[$master] = cl_holders('cl13:x');
$pid = preg_match('/process_id:(\d+)/', cl_cli($master, 'INFO', 'server'), $mm) ? (int)$mm[1] : 0;
$child = fork_child(function () use ($master, $pid) {
    for ($i = 0; $i < 500 && (int)cl_cli($master, 'ZCARD', 'cl13:x{cl13:x}:waiters') === 0; $i++) usleep(10000);
    usleep(100000);                            // the waiter is in its BLPOP
    exec("kill -STOP $pid");
    return 0;
});
try {
    $w->lock('x', 5, 1.0);
    $e = null;
} catch (Throwable $e) {
} finally {
    wait_child($child);
    exec("kill -CONT $pid");
}
$m = $e ? $e->getMessage() : 'no exception';
echo get_class($e ?? new stdClass), "\n";
$named = (bool)preg_match("/Redis at cluster of \\d+ masters via 127\\.0\\.0\\.1:$master answered nothing for the last/", $m);
echo "names the node: ", var_export($named, true), $named ? '' : " (the master: $master; the message: $m)", "\n";
echo "previous: ", $e && $e->getPrevious() ? get_class($e->getPrevious()) : 'none', "\n";
$held->release();
?>
--EXPECT--
DistLock\LockTimeoutException
names the node: true
previous: DistLock\ConnectionException

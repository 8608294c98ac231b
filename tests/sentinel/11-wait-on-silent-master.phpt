--TEST--
Sentinel: a wait whose master stops answering (SIGSTOP, shorter than the sentinels' down-after) once the waiter is blocked ends in LockTimeoutException naming the master and how long it answered nothing, with a ConnectionException as its previous (issue 45.2)
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS') || !function_exists('pcntl_fork')) die('skip SENTINEL_PORTS not set, or no pcntl'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
// the master now (09-failover may have moved it): as the sentinels tell, and its pid
$sp = (int)explode(',', getenv('SENTINEL_PORTS'))[0];
$port = (int)RawConn::tcp('127.0.0.1', $sp)->cmd('SENTINEL', 'get-master-addr-by-name', st_name())[1];
$pid = preg_match('/process_id:(\d+)/', (string)RawConn::tcp('127.0.0.1', $port)->cmd('INFO', 'server'), $mm) ? $mm[1] : '0';
$opts = ['sentinel' => st_name(), 'prefix' => 'st11:', 'timeout' => 1.0, 'watchdog' => false];
$h = new DistLock(st_sentinels(), $opts);
$w = new DistLock(st_sentinels(), $opts);
$held = $h->lock('x', 30);
$child = fork_child(function () use ($port, $pid) {
    $r = RawConn::tcp('127.0.0.1', $port);
    for ($i = 0; $i < 500 && (int)$r->cmd('ZCARD', 'st11:x{st11:x}:waiters') === 0; $i++) usleep(10000);
    usleep(100000);                            // the waiter is in its BLPOP
    st_signal('STOP', $pid);
    return 0;
});
try {
    $w->lock('x', 5, 0.5);             // stopped ~0.6 s in all (with the cancel's 0.25 s): below down-after (1 s)
    $e = null;
} catch (Throwable $e) {
} finally {
    wait_child($child);
    st_signal('CONT', $pid);
}
$m = $e ? $e->getMessage() : 'no exception';
echo get_class($e ?? new stdClass), "\n";
echo "names the master: ", var_export(str_contains($m, "Redis at 127.0.0.1:$port answered nothing for the last"), true), "\n";
echo "previous: ", $e && $e->getPrevious() ? get_class($e->getPrevious()) : 'none', "\n";
$held->release();
?>
--EXPECT--
DistLock\LockTimeoutException
names the master: true
previous: DistLock\ConnectionException

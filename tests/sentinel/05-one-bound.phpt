--TEST--
Sentinel: one call, one bound (issue 37.2), the master stalled (SIGSTOP, shorter than the sentinels' down-after): each call ends within the bound its message names, which is the one that applied (`timeout`, or max(wait, timeout)); endRequest() and the request-end sweep take one `timeout` in all for 1 or 5 leases, and every release still runs when the master resumes
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/onebound.inc';
$timeout = 0.5;
$pid = getenv('SENTINEL_MASTER_PID');
$opts = fn($tag) => ['sentinel' => st_name(), 'prefix' => "st05:$tag:", 'timeout' => $timeout, 'watchdog' => false];
$make = fn($tag) => new DistLock(st_sentinels(), $opts($tag));
$stop = fn() => st_signal('STOP', $pid);
$cont = fn() => st_signal('CONT', $pid);
$checker = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'timeout' => 2]);
$held = fn($tag, $name) => $checker->isLocked("st05:$tag:$name");
try {
    ob_run($make, $stop, $cont, ob_ops(10.0, true), $timeout);
    ob_end_request($make, $stop, $cont, $held, [1, 5], $timeout);
    ob_sweep('$d = new DistLock(' . var_export(st_sentinels(), true) . ', ' . var_export($opts('sweep'), true) . ');',
             $stop, $cont, $held, 5, $timeout);
} finally {
    st_signal('CONT', $pid);
}
?>
--EXPECT--
tryLock: within the bound it names (timeout)
lock(wait: 2): within the bound it names (timeout)
lock(wait: 0.2): within the bound it names (timeout)
tryLockAll: within the bound it names (timeout)
lockAll(wait: 2): within the bound it names (timeout)
Lock::release: within the bound it names (timeout)
release(name, token): within the bound it names (timeout)
releaseAll: within the bound it names (timeout)
Lock::refresh: within the bound it names (timeout)
refresh(name, token): within the bound it names (timeout)
endRequest, 1 lease: within one timeout, every release ran
endRequest, 5 leases: within one timeout, every release ran
request-end sweep, 5 leases: within one timeout, every release ran

--TEST--
Redlock: one call, one bound (issue 37.2), every master stalled (SIGSTOP): each call ends within the bound its message names, which is the one that applied (`timeout`, or max(wait, timeout)); endRequest() and the request-end sweep take one `timeout` in all for 1 or 5 leases, and every release still runs when the masters resume
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/redlock.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/onebound.inc';
$timeout = 0.5;
$opts = fn($tag) => ['prefix' => "rl12:$tag:", 'timeout' => $timeout, 'watchdog' => false];
$make = fn($tag) => new DistLock(rl_uris(), $opts($tag));
$stop = fn() => rl_stop([0, 1, 2, 3, 4]);
$cont = fn() => rl_cont_all();
$held = fn($tag, $name) => (bool)array_filter(rl_values("rl12:$tag:$name"));
try {
    // a master that failed is skipped for 1 s (DL_QUORUM_DOWN_BACKOFF_US): each call meets them all stalled
    $backoff = fn() => usleep(1100000);
    ob_run($make, $stop, $cont, ob_ops(10.0, false), $timeout, $backoff);
    $backoff();
    ob_end_request($make, $stop, fn() => [$cont(), $backoff()], $held, [1, 5], $timeout);
    ob_sweep('$d = new DistLock(' . var_export(rl_uris(), true) . ', ' . var_export($opts('sweep'), true) . ');',
             $stop, $cont, $held, 5, $timeout);
} finally {
    rl_cont_all();
}
?>
--EXPECT--
tryLock: within the bound it names (timeout)
lock(wait: 2): within the bound it names (timeout)
lock(wait: 0.2): within the bound it names (timeout)
Lock::release: within the bound it names (timeout)
release(name, token): within the bound it names (timeout)
releaseAll: within the bound it names (timeout)
Lock::refresh: within the bound it names (timeout)
refresh(name, token): within the bound it names (timeout)
endRequest, 1 lease: within one timeout, every release ran
endRequest, 5 leases: within one timeout, every release ran
request-end sweep, 5 leases: within one timeout, every release ran

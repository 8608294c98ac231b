--TEST--
Cluster: one call, one bound (issue 37.2), every node stalled (SIGSTOP, shorter than cluster-node-timeout): each call ends within the bound its message names, which is the one that applied (`timeout`, or max(wait, timeout)); endRequest() and the request-end sweep take one `timeout` in all for 1 or 5 leases (on several masters), and every release still runs when the nodes resume
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/cluster.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/onebound.inc';
$timeout = 0.5;
$pids = [];
foreach (cl_ports() as $p) {
    if (preg_match('/process_id:(\d+)/', cl_cli($p, 'INFO', 'server'), $m)) $pids[] = (int)$m[1];
}
$signal = function (string $sig) use ($pids) {
    exec('kill -' . $sig . ' ' . implode(' ', $pids), $o, $rc);
    if ($rc !== 0) throw new RuntimeException("kill -$sig failed");
};
$opts = fn($tag) => ['cluster' => true, 'prefix' => "cl05:$tag:", 'timeout' => $timeout, 'watchdog' => false];
$make = fn($tag) => new DistLock([cl_seeds()[0]], $opts($tag));
$checker = new DistLock([cl_seeds()[0]], ['cluster' => true, 'timeout' => 2]);
$held = fn($tag, $name) => $checker->isLocked("cl05:$tag:$name");
try {
    ob_run($make, fn() => $signal('STOP'), fn() => $signal('CONT'), ob_ops(10.0, true), $timeout);
    ob_end_request($make, fn() => $signal('STOP'), fn() => $signal('CONT'), $held, [1, 5], $timeout);
    ob_sweep('$d = new DistLock(' . var_export([cl_seeds()[0]], true) . ', ' . var_export($opts('sweep'), true) . ');',
             fn() => $signal('STOP'), fn() => $signal('CONT'), $held, 5, $timeout);
} finally {
    $signal('CONT');
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

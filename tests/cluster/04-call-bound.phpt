--TEST--
Cluster: with the nodes stalled (SIGSTOP, shorter than cluster-node-timeout), every operation ends within its call's bound (`timeout`; a waiting acquire max(wait, timeout)), whatever undo or retry it still owes, and the next call reads its own replies
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/stall.inc';
$timeout = 0.3;
$pids = [];
foreach (cl_ports() as $p) {
    if (preg_match('/process_id:(\d+)/', cl_cli($p, 'INFO', 'server'), $m)) $pids[] = (int)$m[1];
}
$signal = function (string $sig) use ($pids) {
    exec('kill -' . $sig . ' ' . implode(' ', $pids), $o, $rc);
    if ($rc !== 0) throw new RuntimeException("kill -$sig failed");
};
try {
    stall_run(fn($i) => new DistLock([cl_seeds()[0]], ['cluster' => true, 'prefix' => "cl04:$i:", 'timeout' => $timeout]),
              fn() => $signal('STOP'), fn() => $signal('CONT'),
              stall_ops(2.0, true), $timeout, is_valgrind() ? 0.4 : 0.2);
} finally {
    $signal('CONT');
}
?>
--EXPECT--
tryLock: ConnectionException, within its bound
lock(wait: 0): ConnectionException, within its bound
lock(wait: 1): ConnectionException, within its bound
tryLockShared: ConnectionException, within its bound
lockShared(wait: 0): ConnectionException, within its bound
tryLockExclusive: ConnectionException, within its bound
tryAcquirePermits: ConnectionException, within its bound
acquirePermits(wait: 1): ConnectionException, within its bound
tryLockAll: ConnectionException, within its bound
lockAll(wait: 1): ConnectionException, within its bound
synchronized: ConnectionException, within its bound
Lock::release: ConnectionException, within its bound
Lock::refresh: ConnectionException, within its bound
release(name, token): ConnectionException, within its bound
refresh(name, token): ConnectionException, within its bound
releaseAll: ConnectionException, within its bound
restore: ConnectionException, within its bound
status: ConnectionException, within its bound
isLocked: ConnectionException, within its bound
owner: ConnectionException, within its bound
forceRelease: ConnectionException, within its bound

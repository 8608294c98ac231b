--TEST--
Cluster: CLUSTER FAILOVER while a semaphore's permits, a shared lease and a multi-lock are held and a permit waiter waits: all are still held on the promoted replica, and the waiter gets its permit at the release
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$opts = ['cluster' => true, 'defer_release' => false, 'timeout' => 2];
$d = new DistLock(cl_seeds(), $opts);
// every name in one hash slot ({fp}): one master holds them all
$permits = $d->acquirePermits('{fp}sem', 2, 2, 30, 0);       // both permits of 2
$shared = $d->lockShared('{fp}rw', 30, 0);
[$a, $b] = $d->lockAll(['{fp}a', '{fp}b'], 30, 0);
$master = cl_holders('lock:{fp}a')[0];
$replica = null;
foreach (cl_ports() as $p) {
    if (str_contains(cl_cli($p, 'INFO', 'replication'), "master_port:$master")) $replica = $p;
}
$pid = pcntl_fork();
if ($pid === 0) {
    $w = new DistLock(cl_seeds(), $opts);
    try {
        $g = $w->acquirePermits('{fp}sem', 2, 1, 30, 20);
        exit($g->isAcquired() ? 0 : 1);
    } catch (Throwable $e) {
        fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
        exit(2);
    }
}
usleep(300000);
echo "failover: ", cl_cli($replica, 'CLUSTER', 'FAILOVER'), "\n";
for ($i = 0; $i < 100 && !str_contains(cl_cli($replica, 'INFO', 'replication'), 'role:master'); $i++) usleep(100000);
var_dump(str_contains(cl_cli($replica, 'INFO', 'replication'), 'role:master'));
usleep(500000);
// Still held, now on the promoted replica.
echo "multi-lock on the promoted replica: ", var_export(cl_holders('lock:{fp}a') === [$replica] && cl_holders('lock:{fp}b') === [$replica], true), "\n";
echo "permits: ", json_encode($d->permits('{fp}sem')), "\n";
var_dump((new DistLock(cl_seeds(), $opts))->tryLockExclusive('{fp}rw'));   // another owner ($d's own: an upgrade, issue 37.1)
var_dump($a->isAcquired(), $shared->isAcquired());
// The release wakes the waiter that blocked across the failover.
var_dump($permits->release());
pcntl_waitpid($pid, $st);
echo "waiter: ", pcntl_wexitstatus($st) === 0 ? "got its permit after the release" : "failed " . pcntl_wexitstatus($st), "\n";
var_dump($shared->release(), $a->release(), $b->release());
$x = $d->tryLockExclusive('{fp}rw', 5);
var_dump($x !== null && $x->release());
?>
--EXPECT--
failover: OK
bool(true)
multi-lock on the promoted replica: true
permits: {"holders":1,"used":2}
NULL
bool(true)
bool(true)
bool(true)
waiter: got its permit after the release
bool(true)
bool(true)
bool(true)
bool(true)

--TEST--
Cluster: CLUSTER FAILOVER while a lease is held and a waiter waits: the lease is still held on the promoted replica, and the waiter gets it after the release
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$opts = ['cluster' => true, 'ttl' => 30, 'defer_release' => false, 'timeout' => 2];
$d = new DistLock(cl_seeds(), $opts);
$l = $d->lock('fo', 30, 0);
$master = cl_holders('lock:fo')[0];
// The replica of that master.
$replica = null;
foreach (cl_ports() as $p) {
    if (str_contains(cl_cli($p, 'INFO', 'replication'), "master_port:$master")) $replica = $p;
}
$pid = pcntl_fork();
if ($pid === 0) {
    $w = new DistLock(cl_seeds(), $opts);
    try {
        $g = $w->lock('fo', 30, 20);
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
// Still held, by us, now on the promoted replica.
var_dump(cl_holders('lock:fo') === [$replica], $d->owner('fo') === $l->token());
var_dump($l->release());
pcntl_waitpid($pid, $st);
echo "waiter: ", pcntl_wexitstatus($st) === 0 ? "acquired after the release" : "failed " . pcntl_wexitstatus($st), "\n";
?>
--EXPECT--
failover: OK
bool(true)
bool(true)
bool(true)
bool(true)
waiter: acquired after the release

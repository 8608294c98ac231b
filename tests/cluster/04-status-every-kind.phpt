--TEST--
Cluster: status(), isLocked() and owner() see every kind of holder (mutex, shared, exclusive, semaphore, a multi-lock member) on names of every master, with waiters, and free
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$opts = ['cluster' => true, 'prefix' => 'cl04:', 'defer_release' => false];
$a = new DistLock([cl_seeds()[0]], $opts);
$b = new DistLock(cl_seeds(), $opts);
$seen = new DistLock([cl_seeds()[1]], $opts);
$masters = [];
function look(string $name, ?string $owner = null): void
{
    global $seen, $masters;
    $s = $seen->status($name);
    $o = $seen->owner($name);
    printf("%s: %s kind=%s holders=%d permits=%d ttl>0=%s waiters=%d isLocked=%s owner=%s\n", $name, $s['locked'] ? 'locked' : 'free',
        $s['kind'] ?? 'null', $s['holders'], $s['permits'], var_export($s['ttl'] > 0, true), $s['waiters'],
        var_export($seen->isLocked($name), true), $o === null ? 'null' : ($o === $owner ? 'the holder' : 'another'));
    foreach (cl_holders("cl04:$name") as $h) $masters[$h] = true;
}
$m = $a->lock('m', 10);
look('m', $m->token());
$r1 = $a->lockShared('rw', 10);
$r2 = $b->lockShared('rw', 20);
// a writer waits (a forked child): counted among the waiters
$pid = pcntl_fork();
if ($pid === 0) {
    $w = new DistLock(cl_seeds(), $opts);
    exit($w->lockExclusive('rw', 5, 10)->release() ? 0 : 1);
}
for ($i = 0; $i < 500 && $seen->status('rw')['waiters'] === 0; $i++) usleep(10000);
look('rw');
$r1->release();
$r2->release();
pcntl_waitpid($pid, $st);
echo "writer: exit ", pcntl_wexitstatus($st), "\n";
$x = $a->lockExclusive('rw', 10);
look('rw', $x->token());
$x->release();
$s1 = $a->acquirePermits('sem', 5, 2, 10);
$s2 = $b->acquirePermits('sem', 5, 1, 10);
look('sem');
[$ma, $mb] = $a->lockAll(['{t}a', '{t}b'], 10);
look('{t}b', $mb->token());
$a->releaseAll([$ma, $mb]);
$s1->release();
$s2->release();
$m->release();
echo "masters: ", count($masters), "\n";
foreach (['m', 'rw', 'sem', '{t}b'] as $n) look($n);
?>
--EXPECT--
m: locked kind=mutex holders=1 permits=0 ttl>0=true waiters=0 isLocked=true owner=the holder
rw: locked kind=shared holders=2 permits=0 ttl>0=true waiters=1 isLocked=true owner=null
writer: exit 0
rw: locked kind=exclusive holders=1 permits=0 ttl>0=true waiters=0 isLocked=true owner=the holder
sem: locked kind=semaphore holders=2 permits=3 ttl>0=true waiters=0 isLocked=true owner=null
{t}b: locked kind=mutex holders=1 permits=0 ttl>0=true waiters=0 isLocked=true owner=the holder
masters: 3
m: free kind=null holders=0 permits=0 ttl>0=false waiters=0 isLocked=false owner=null
rw: free kind=null holders=0 permits=0 ttl>0=false waiters=0 isLocked=false owner=null
sem: free kind=null holders=0 permits=0 ttl>0=false waiters=0 isLocked=false owner=null
{t}b: free kind=null holders=0 permits=0 ttl>0=false waiters=0 isLocked=false owner=null

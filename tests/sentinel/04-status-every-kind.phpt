--TEST--
Sentinel: status(), isLocked() and owner() on the master see every kind of holder (mutex, shared, exclusive, semaphore), and free
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
$opts = ['sentinel' => st_name(), 'prefix' => 'st04:', 'defer_release' => false];
$a = new DistLock(st_sentinels(), $opts);
$b = new DistLock(st_sentinels(), $opts);
$seen = new DistLock(st_sentinels(), $opts);
function look(string $name, ?string $owner = null): void
{
    global $seen;
    $s = $seen->status($name);
    $o = $seen->owner($name);
    printf("%s: %s kind=%s holders=%d permits=%d ttl>0=%s isLocked=%s owner=%s\n", $name, $s['locked'] ? 'locked' : 'free',
        $s['kind'] ?? 'null', $s['holders'], $s['permits'], var_export($s['ttl'] > 0, true),
        var_export($seen->isLocked($name), true), $o === null ? 'null' : ($o === $owner ? 'the holder' : 'another'));
}
$m = $a->lock('m', 10);
look('m', $m->token());
$r1 = $a->lockShared('rw', 10);
$r2 = $b->lockShared('rw', 20);
look('rw');
$r1->release();
$r2->release();
$x = $a->lockExclusive('rw', 10);
look('rw', $x->token());
$x->release();
$s1 = $a->acquirePermits('sem', 5, 2, 10);
$s2 = $b->acquirePermits('sem', 5, 1, 10);
look('sem');
$s1->release();
$s2->release();
$m->release();
foreach (['m', 'rw', 'sem'] as $n) look($n);
?>
--EXPECT--
m: locked kind=mutex holders=1 permits=0 ttl>0=true isLocked=true owner=the holder
rw: locked kind=shared holders=2 permits=0 ttl>0=true isLocked=true owner=null
rw: locked kind=exclusive holders=1 permits=0 ttl>0=true isLocked=true owner=the holder
sem: locked kind=semaphore holders=2 permits=3 ttl>0=true isLocked=true owner=null
m: free kind=null holders=0 permits=0 ttl>0=false isLocked=false owner=null
rw: free kind=null holders=0 permits=0 ttl>0=false isLocked=false owner=null
sem: free kind=null holders=0 permits=0 ttl>0=false isLocked=false owner=null

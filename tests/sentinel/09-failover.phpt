--TEST--
Sentinel: kill -9 of the master: acquires resume on the promoted replica (the mutex, and then a semaphore's permits, shared and exclusive leases and a multi-lock), and nothing is written to a node while it is a replica
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
$opts = ['sentinel' => st_name(), 'wait' => 0, 'timeout' => 0.5, 'connect_timeout' => 0.5, 'defer_release' => false];
$d = new DistLock(st_sentinels(), $opts);
$d->tryLock('f0')->release();
st_signal('KILL', getenv('SENTINEL_MASTER_PID'));
$t = hrtime(true);
$resumed = null;
$errors = 0;
while ((hrtime(true) - $t) / 1e9 < 60) {
    try {
        $l = $d->tryLock('f1');
        if ($l) { $resumed = (hrtime(true) - $t) / 1e9; break; }
    } catch (DistLock\ConnectionException $e) {
        $errors++;
    }
    usleep(100000);
}
printf("resumed: %s\n", $resumed !== null ? 'yes' : 'no');
file_put_contents(getenv('DISTLOCK_LOG_DIR') . '/sentinel-failover.txt', sprintf("resumed after %.1f s, %d connection errors meanwhile\n", $resumed, $errors));
// The grant is on the promoted replica, which is a master now.
$new = st_node(getenv('SENTINEL_REPLICA_PORT'));
var_dump($new->owner('lock:f1') === $l->token());
var_dump($l->release());
// The primitives beyond the mutex run on the promoted replica too.
$p = $d->tryAcquirePermits('fs', 2, 2, 10);
$r = $d->tryLockShared('fr', 10);
$m = $d->tryLockAll(['fa', 'fb'], 10);
// exclusive beside it: asked by another owner ($d's own request would be an upgrade, issue 37.1)
echo "after the failover: permits ", json_encode($d->permits('fs')), ", shared ", var_export($r !== null, true),
    ", exclusive beside it ", var_export((new DistLock(st_sentinels(), $opts))->tryLockExclusive('fr'), true),
    ", multi-lock ", var_export($m !== null, true), "\n";
var_dump($new->owner('lock:fa') === $m[0]->token());
var_dump($p->release(), $r->release(), $m[0]->release(), $m[1]->release());
// Nothing was ever refused as READONLY on it (no write reached it while it was a replica).
$info = shell_exec('redis-cli -p ' . (int)getenv('SENTINEL_REPLICA_PORT') . ' INFO errorstats');
var_dump(str_contains((string)$info, 'errorstat_READONLY'));
?>
--EXPECT--
resumed: yes
bool(true)
bool(true)
after the failover: permits {"holders":1,"used":2}, shared true, exclusive beside it NULL, multi-lock true
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)

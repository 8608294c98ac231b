--TEST--
Shared locks, semaphores and multi-locks on Redlock: a ValueError that says why, before any connection is made
--EXTENSIONS--
distlock
--FILE--
<?php
// Three masters that do not exist: the refusal comes from the configuration alone.
$d = new DistLock(['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['connect_timeout' => 0.1]);
$calls = [
    'lockShared' => fn() => $d->lockShared('a'),
    'tryLockShared' => fn() => $d->tryLockShared('a'),
    'lockExclusive' => fn() => $d->lockExclusive('a'),
    'tryLockExclusive' => fn() => $d->tryLockExclusive('a'),
    'acquirePermits' => fn() => $d->acquirePermits('a', 2),
    'tryAcquirePermits' => fn() => $d->tryAcquirePermits('a', 2),
    'permits' => fn() => $d->permits('a'),
    'lockAll' => fn() => $d->lockAll(['a', 'b']),
    'tryLockAll' => fn() => $d->tryLockAll(['a', 'b']),
];
foreach ($calls as $m => $f) {
    try { $f(); echo "$m: no error\n"; } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
}
echo "errors: ", $d->stats()['connection_errors'], "\n";
?>
--EXPECT--
DistLock::lockShared(): shared locks are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::tryLockShared(): shared locks are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::lockExclusive(): shared locks are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::tryLockExclusive(): shared locks are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::acquirePermits(): semaphores are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::tryAcquirePermits(): semaphores are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::permits(): semaphores are not offered on Redlock (a list of masters): its quorum argument (redis.io) covers one exclusive key per name, and permits or shared holders counted on independent masters can disagree; use one server, Sentinel or Cluster
DistLock::lockAll(): multi-locks are not offered on Redlock (a list of masters): all-or-none is one script on one server; with Redlock take the names with lock() one by one, in a fixed order
DistLock::tryLockAll(): multi-locks are not offered on Redlock (a list of masters): all-or-none is one script on one server; with Redlock take the names with lock() one by one, in a fixed order
errors: 0

--TEST--
Sentinel: the master is found through the sentinels; locks are written to it (and replicated), never to the replica; an unknown service is a ConnectionException
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
$d = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'ttl' => 10, 'defer_release' => false]);
$l = $d->lock('s1');
var_dump($l->isAcquired());
var_dump(st_node(getenv('SENTINEL_MASTER_PORT'))->owner('lock:s1') === $l->token());
usleep(200000);
var_dump(st_node(getenv('SENTINEL_REPLICA_PORT'))->owner('lock:s1') === $l->token());   // replicated
var_dump($d->isLocked('s1'), $l->refresh(20), $l->release(), $d->isLocked('s1'));
$dump = print_r($d, true);
var_dump(str_contains($dump, 'sentinel'));

// A sentinel list where the first is down: the next one answers.
$dead = stream_socket_server('tcp://127.0.0.1:0');
$deadUri = 'redis://' . stream_socket_get_name($dead, false);
fclose($dead);
$d2 = new DistLock(array_merge([$deadUri], st_sentinels()), ['sentinel' => st_name()]);
var_dump($d2->tryLock('s2')?->release());

try {
    (new DistLock(st_sentinels(), ['sentinel' => 'no-such-master']))->tryLock('x');
} catch (DistLock\ConnectionException $e) {
    echo get_class($e), ": ", str_contains($e->getMessage(), 'no-such-master') ? 'names the service' : $e->getMessage(), "\n";
}
// min_replicas => 1 with the replica running: granted.
$d3 = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'min_replicas' => 1, 'replica_timeout' => 2]);
$l3 = $d3->tryLock('s3');
var_dump($l3 !== null, $l3->refresh(), $l3->release());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
DistLock\ConnectionException: names the service
bool(true)
bool(true)
bool(true)

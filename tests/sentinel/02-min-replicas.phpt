--TEST--
Sentinel, min_replicas: with the replica stopped an acquire throws ReplicationException within replica_timeout and leaves no key; resumed, it is granted
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
$d = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'min_replicas' => 1, 'replica_timeout' => 0.3, 'wait' => 0]);
$d->tryLock('warm')?->release();
st_signal('STOP', getenv('SENTINEL_REPLICA_PID'));
try {
    $t = hrtime(true);
    try {
        $d->tryLock('r1');
        echo "granted\n";
    } catch (DistLock\ReplicationException $e) {
        $took = (hrtime(true) - $t) / 1e9;
        echo get_class($e), "\n";
        var_dump($e instanceof DistLock\ConnectionException, $took >= 0.3, $took < 2.0);
        echo preg_replace('/127\.0\.0\.1:\d+/', 'HOST', $e->getMessage()), "\n";
    }
    var_dump(st_node(getenv('SENTINEL_MASTER_PORT'))->owner('lock:r1'));   // undone: no key
} finally {
    st_signal('CONT', getenv('SENTINEL_REPLICA_PID'));
}
usleep(300000);
$l = $d->tryLock('r1');
var_dump($l !== null, $l?->release());
?>
--EXPECTF--
DistLock\ReplicationException
bool(true)
bool(true)
bool(true)
%s0 of 1 replicas acknowledged%s
NULL
bool(true)
bool(true)

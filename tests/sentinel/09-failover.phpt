--TEST--
Sentinel: kill -9 of the master: acquires resume on the promoted replica, and nothing is written to a node while it is a replica
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
// Nothing was ever refused as READONLY on it (no write reached it while it was a replica).
$info = shell_exec('redis-cli -p ' . (int)getenv('SENTINEL_REPLICA_PORT') . ' INFO errorstats');
var_dump(str_contains((string)$info, 'errorstat_READONLY'));
?>
--EXPECT--
resumed: yes
bool(true)
bool(true)
bool(false)

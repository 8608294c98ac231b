--TEST--
Redlock: the watchdog renews a lease through 2 stopped masters and reports it lost when 3 are stopped
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$d = new DistLock(rl_uris(), ['ttl' => 1, 'timeout' => 0.2, 'watchdog' => true, 'wait' => 0]);
$l = $d->tryLock('watched');
try {
    rl_stop([3, 4]);
    sleep(3);   // three ttls: renewed every ttl/3 by the three live masters
    var_dump($l->isAcquired());
    $pttl = rl_node(0)->status('lock:watched')['ttl'];
    var_dump($pttl > 0.3 && $pttl <= 1.0);
    rl_stop([2]);
    sleep(3);   // renewals reach 2 of 5: the lease runs out and is reported lost
    var_dump($l->isAcquired());
    var_dump($d->stats()['lost'] >= 1);
} finally {
    rl_cont_all();
}
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
bool(true)

--TEST--
Redlock: masters that refuse connections (down) fail fast: a QuorumException naming each failure, well within the node timeout
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$u = rl_uris();
$servers = [$u[0], $u[1], rl_dead_uri(), rl_dead_uri(), rl_dead_uri()];
$d = new DistLock($servers, ['ttl' => 5, 'timeout' => 2, 'connect_timeout' => 2, 'wait' => 0]);
for ($i = 0; $i < 2; $i++) {
    $t = hrtime(true);
    try {
        $d->tryLock('refused');
        echo "no exception\n";
    } catch (DistLock\QuorumException $e) {
        printf("%s in under 0.5 s: %s\n", get_class($e), var_export((hrtime(true) - $t) / 1e9 < 0.5, true));
        echo preg_replace('/127\.0\.0\.1:\d+/', 'HOST', $e->getMessage()), "\n";
    }
}
// Nothing was left on the two live masters (the attempt was undone).
usleep(20000);
var_dump(rl_values('lock:refused', [0, 1]));
// With 3 of 5 live it works (2 refused).
$d = new DistLock([$u[0], $u[1], $u[2], rl_dead_uri(), rl_dead_uri()], ['ttl' => 5, 'wait' => 0]);
$l = $d->tryLock('refused');
var_dump($l->isAcquired(), $l->release());
?>
--EXPECTF--
DistLock\QuorumException in under 0.5 s: true
Redlock acquire: 3 of 5 masters failed, more than the 2 a quorum of 3 survives; Cannot connect to Redis at HOST: Connection refused; Cannot connect to Redis at HOST: Connection refused; Cannot connect to Redis at HOST: Connection refused
DistLock\QuorumException in under 0.5 s: true
Redlock acquire: 3 of 5 masters failed, more than the 2 a quorum of 3 survives; Redis at HOST: skipped, down since a failure less than 1000 ms ago; Redis at HOST: skipped, down since a failure less than 1000 ms ago; Redis at HOST: skipped, down since a failure less than 1000 ms ago
array(2) {
  [0]=>
  NULL
  [1]=>
  NULL
}
bool(true)
bool(true)

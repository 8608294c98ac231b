--TEST--
Redlock: with 2 of 5 masters stopped (SIGSTOP) every acquire succeeds; with 3 stopped a QuorumException comes within attempts x node timeout, the live masters keep nothing, and nothing outlives its ttl after SIGCONT
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$opts = ['ttl' => 2, 'timeout' => 0.2, 'connect_timeout' => 0.5, 'wait' => 0, 'defer_release' => false];
$d = new DistLock(rl_uris(), $opts);
$d->tryLock('warm')->release();   // connections made while every master runs

try {
    rl_stop([3, 4]);
    $ok = 0;
    $slowest = 0;
    for ($i = 0; $i < 20; $i++) {
        $t = hrtime(true);
        $l = $d->tryLock("two-down-$i");
        $slowest = max($slowest, (hrtime(true) - $t) / 1e9);
        if ($l && $l->remainingLifetime() > 1.0) $ok++;
        $l?->release();
    }
    echo "acquired with 2 of 5 stopped: $ok of 20\n";
    // The first round waits one node timeout (0.2 s) for the stopped pair; later
    // rounds skip them (marked down) and are decided by the three live masters.
    var_dump($slowest < 1.0);

    rl_stop([2]);
    $t = hrtime(true);
    try {
        $d->tryLock('three-down');
        echo "no exception\n";
    } catch (DistLock\QuorumException $e) {
        $took = (hrtime(true) - $t) / 1e9;
        echo get_class($e), "\n";
        var_dump(str_contains($e->getMessage(), 'Redlock acquire: 3 of 5 masters failed, more than the 2 a quorum of 3 survives'));
        var_dump($e instanceof DistLock\ConnectionException, $took < 1.0);
    }
    // lock() with a wait gives up after 3 attempts without a quorum, not at the end of the wait.
    $t = hrtime(true);
    try {
        $d->lock('three-down-wait', 2, 30);
        echo "no exception\n";
    } catch (DistLock\QuorumException $e) {
        $took = (hrtime(true) - $t) / 1e9;
        var_dump($took < 3 * (0.2 + 0.1) + 1.0);
    }
    usleep(50000);
    var_dump(rl_values('lock:three-down', [0, 1]), rl_values('lock:three-down-wait', [0, 1]));
} finally {
    rl_cont_all();
}
// Once resumed, the stopped masters run what was queued for them (SET ... PX 2000):
// whatever it leaves expires within the ttl.
usleep(2300000);
var_dump(array_filter(rl_values('lock:three-down') + rl_values('lock:three-down-wait')));
// And the masters are usable again once the back-off has passed.
usleep(1000000);
$l = $d->tryLock('after');
var_dump(count(array_filter(rl_values('lock:after'))));
?>
--EXPECT--
acquired with 2 of 5 stopped: 20 of 20
bool(true)
DistLock\QuorumException
bool(true)
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  NULL
  [1]=>
  NULL
}
array(2) {
  [0]=>
  NULL
  [1]=>
  NULL
}
array(0) {
}
int(5)

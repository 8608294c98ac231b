--TEST--
Cluster: lock() gives up at its own deadline, not at the master's next timer tick (hz 10)
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
require __DIR__ . '/../phpt/inc/deadline.inc';
foreach ([false, true] as $fair) {
    $holder = new DistLock([cl_seeds()[0]], ['cluster' => true, 'fair' => $fair]);
    $waiter = new DistLock([cl_seeds()[0]], ['cluster' => true, 'fair' => $fair]);
    $l = $holder->lock('deadline', 60);
    deadline_report($fair ? 'fair' : 'default', deadline_overshoots($waiter, 'deadline', [0.05, 0.15, 0.30], 3), 10, 40);
    var_dump($l->release());
}
?>
--EXPECT--
default: 9 waits, none early, median and max overshoot within bounds: true
bool(true)
fair: 9 waits, none early, median and max overshoot within bounds: true
bool(true)

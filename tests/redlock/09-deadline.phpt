--TEST--
Redlock: lock() gives up at its own deadline, not at a master's next timer tick (hz 10)
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
require __DIR__ . '/../phpt/inc/deadline.inc';
$holder = new DistLock(rl_uris(), ['ttl' => 30]);
$waiter = new DistLock(rl_uris(), ['ttl' => 30]);
$l = $holder->lock('deadline', 60);
deadline_report('redlock', deadline_overshoots($waiter, 'deadline', [0.05, 0.15, 0.30], 3), 10, 40);
var_dump($l->release());
?>
--EXPECT--
redlock: 9 waits, none early, median and max overshoot within bounds: true
bool(true)

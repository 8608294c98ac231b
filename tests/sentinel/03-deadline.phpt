--TEST--
Sentinel: lock() gives up at its own deadline, not at the master's next timer tick (hz 10)
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
require __DIR__ . '/../phpt/inc/deadline.inc';
foreach ([false, true] as $fair) {
    $holder = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'fair' => $fair]);
    $waiter = new DistLock(st_sentinels(), ['sentinel' => st_name(), 'fair' => $fair]);
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

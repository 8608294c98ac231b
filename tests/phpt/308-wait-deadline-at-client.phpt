--TEST--
Waiting: lock() gives up at its own deadline, not at the server's next timer tick (a server with hz 10), in default and fair mode
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/deadline.inc';
// A private server with Redis's default timer (hz 10): it times a blocked
// BLPOP out only at its next tick, up to 100 ms after the BLPOP's timeout.
$port = start_test_redis('308', ['--hz', '10']);
$uri = "redis://127.0.0.1:$port";
$p = 'phpt_308:';
$slow = lc_slow();
// A 5 s call bound ('timeout'): what is measured is where each wait ends, not
// how long a reply may take; beside two CPU hogs the default 1 s bound ran out
// once (ConnectionException) while the server waited for a CPU.
foreach ([false, true] as $fair) {
    $holder = new DistLock($uri, ['prefix' => $p, 'fair' => $fair, 'timeout' => 5]);
    $waiter = new DistLock($uri, ['prefix' => $p, 'fair' => $fair, 'timeout' => 5]);
    $l = $holder->lock('x', 60);
    // Before the deadline moved to the client, the median was about 50 ms.
    $r = deadline_overshoots($waiter, 'x', [0.01, 0.05, 0.10, 0.15, 0.30], 3);
    deadline_report($fair ? 'fair' : 'default', $r, 8 * $slow, 40 * $slow);
    $l->release();
    echo "keys left: ", json_encode((RawConn::tcp('127.0.0.1', $port))->cmd('KEYS', $p . '*')), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('308');
?>
--EXPECT--
default: 15 waits, none early, median and max overshoot within bounds: true
keys left: []
fair: 15 waits, none early, median and max overshoot within bounds: true
keys left: []

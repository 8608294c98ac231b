--TEST--
Redlock: a waiter blocks on a wake list instead of sleeping out its retry delay: a release hands the lock over at once (not at the next retry)
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
// Retry delays of 0.5 s: a waiter that only slept would take up to 0.5 s to notice a release.
$opts = ['ttl' => 10, 'retry_delay' => 0.5, 'retry_jitter' => 0, 'defer_release' => false];
$d = new DistLock(rl_uris(), $opts);
$results = [];
for ($round = 0; $round < 3; $round++) {
    $l = $d->lock("handover", 10, 0);
    $pipe = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, 0);
    $pid = pcntl_fork();
    if ($pid === 0) {
        fclose($pipe[0]);
        $w = new DistLock(rl_uris(), $opts);
        $g = $w->lock('handover', 10, 10);
        fwrite($pipe[1], (string)hrtime(true));
        $g->release();
        exit(0);
    }
    fclose($pipe[1]);
    usleep(600000 + 150000 * $round);   // the waiter is registered and blocked by now
    $released = hrtime(true);
    $l->release();
    $got = (int)stream_get_contents($pipe[0]);
    pcntl_waitpid($pid, $st);
    $results[] = ($got - $released) / 1e9;
}
sort($results);
// The median hand-over: a wake-up takes milliseconds; a sleeping waiter would need up to 0.5 s.
var_dump($results[1] < 0.15);
?>
--EXPECT--
bool(true)

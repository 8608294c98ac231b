--TEST--
A release whose reply was lost had run: release(), releaseAll() (a multi-lock's script and a pipeline of kinds) isAcquired() and a deferred release at destruction afterwards call the lease released by us (true, stats "released"), not lost, while it is valid; past its validity, or without an earlier failed release, a key found gone is lost
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
require __DIR__ . '/inc/proc.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl');
if (redis_server_bin() === null) die('skip redis-server not found');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/proxy.inc';
$p = 'phpt_420:';
// a server of its own: the release must run at once, so its scripts stay cached
// (a neighbour's SCRIPT FLUSH would make it answer NOSCRIPT, which the proxy keeps back)
$port = start_test_redis('420');
$raw = RawConn::tcp('127.0.0.1', $port);
$proxy = proxy_start($port);
$d = new DistLock("redis://127.0.0.1:{$proxy['port']}",
    ['prefix' => $p, 'timeout' => 0.3 * lc_slow(), 'watchdog' => false, 'defer_release' => false]);
// every release script used below, cached once
$d->releaseAll($d->lockAll(['w1', 'w2'], 30));
$d->releaseAll([$d->lock('w3', 30), $d->lockShared('w4', 30), $d->acquirePermits('w5', 2, 1, 30)]);

// The release reaches the server and runs; its reply is kept back ('hold') until the
// call gives up: ConnectionException, outcome unknown. Then the connection is cut.
$lostReply = function (callable $release) use ($proxy): string {
    proxy_mode($proxy, 'hold');
    try {
        $release();
        $what = 'no exception';
    } catch (DistLock\ConnectionException $e) {
        $what = str_contains($e->getMessage(), 'outcome is unknown') ? 'ConnectionException, outcome unknown' : get_class($e);
    }
    proxy_mode($proxy, 'cut');
    return $what;
};
$delta = function (array $before) use ($d): string {
    $now = $d->stats();
    return 'released +' . ($now['released'] - $before['released']) . ', lost +' . ($now['lost'] - $before['lost']);
};

// 1. release() again
$h = $d->lock('one', 30);
$st = $d->stats();
echo "release(): ", $lostReply(fn () => $h->release()), "; key left: ", $raw->cmd('EXISTS', $p . 'one'), "\n";
echo "  again: ", var_export($h->release(), true), ", once more: ", var_export($h->release(), true), "; ", $delta($st), "\n";

// 2. releaseAll(): a multi-lock (one script for its names) and handles of kinds (a pipeline)
$all = $d->lockAll(['m1', 'm2'], 30);
$st = $d->stats();
echo "releaseAll(multi-lock): ", $lostReply(fn () => $d->releaseAll($all)), "; keys left: ", $raw->cmd('EXISTS', $p . 'm1', $p . 'm2'), "\n";
echo "  again: ", $d->releaseAll($all), "; ", $delta($st), "\n";
$kinds = [$d->lock('k1', 30), $d->lockShared('k2', 30), $d->acquirePermits('k3', 2, 1, 30)];
$st = $d->stats();
echo "releaseAll(kinds): ", $lostReply(fn () => $d->releaseAll($kinds)), "\n";
echo "  again: ", $d->releaseAll($kinds), "; ", $delta($st), "\n";

// 3. isAcquired() first: false (it is not held), and release() then says it was ours
$h = $d->lock('asked', 30);
$st = $d->stats();
echo "isAcquired() path: ", $lostReply(fn () => $h->release()), "\n";
echo "  isAcquired(): ", var_export($h->isAcquired(), true), ", release(): ", var_export($h->release(), true), "; ", $delta($st), "\n";

// 4. past the lease's validity, expiry and our release cannot be told apart: lost
$ttl = 0.5 * lc_slow();
$h = $d->lock('short', $ttl);
$st = $d->stats();
echo "past validity: ", $lostReply(fn () => $h->release()), "\n";
usleep((int)(($ttl + 0.2) * 1e6));
echo "  again: ", var_export($h->release(), true), "; ", $delta($st), "\n";

// 5. the handle destroyed after the failed release, with defer_release on: its release is
// written without waiting, and its reply, read before the next command, finds the key gone
$e = new DistLock("redis://127.0.0.1:{$proxy['port']}",
    ['prefix' => $p, 'timeout' => 0.3 * lc_slow(), 'watchdog' => false, 'defer_release' => true]);
$e->lock('warm', 30)->release();
$h = $e->lock('dropped', 30);
$st = $d->stats();
echo "destroyed: ", $lostReply(fn () => $h->release()), "\n";
$e->isLocked('warm');      // connected again: the destruction's release is written on it, not sent synchronously
unset($h);
$e->isLocked('dropped');   // reads the deferred release's reply
echo "  the deferred release: ", $delta($st), "\n";

// 6. no failed release before: a key deleted by another (DEL) is lost, not ours
$h = $d->lock('other', 30);
$raw->cmd('DEL', $p . 'other');
$st = $d->stats();
echo "deleted by another: ", var_export($h->release(), true), "; ", $delta($st), "\n";

proxy_stop($proxy);
stop_test_redis_all('420');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('420');
?>
--EXPECT--
release(): ConnectionException, outcome unknown; key left: 0
  again: true, once more: false; released +1, lost +0
releaseAll(multi-lock): ConnectionException, outcome unknown; keys left: 0
  again: 2; released +2, lost +0
releaseAll(kinds): ConnectionException, outcome unknown
  again: 3; released +3, lost +0
isAcquired() path: ConnectionException, outcome unknown
  isAcquired(): false, release(): true; released +1, lost +0
past validity: ConnectionException, outcome unknown
  again: false; released +0, lost +1
destroyed: ConnectionException, outcome unknown
  the deferred release: released +1, lost +0
deleted by another: false; released +0, lost +1

--TEST--
Deadlock detection (issue 47), the waits that are not a single name's holder: a semaphore waiter whose every permit holder waits for it (a knot of OR-waits) is the victim; a multi-lock waiter (lockAll) waits for the holders of all its names; a shared waiter behind a queued exclusive waiter (writer preference) waits for the readers that one waits for. Each is found at the first re-registration, and the others are granted once the victim lets go
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/deadlock.inc';
$p = 'phpt_426:';
$port = start_test_redis('426');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();
$dir = sys_get_temp_dir() . '/phpt_426_' . getmypid();
@mkdir($dir);
$queued = fn(string $key) => lc_wait_until(fn() => (int)$raw->cmd('EXISTS', $key) === 1, 10 * $slow);

// The three run side by side, each under a prefix of its own (a wait checked from its first
// re-registration is found within a block, 2 s).
// 1. A knot: V holds the mutex m and wants 1 of the 2 permits of pool; H1 and H2 hold one each
//    and both wait for m. Every holder that could free V waits for V. (422 has the OR-wait
//    that is not one: a holder that can still release.)
$p1 = "{$p}1:";
$permit = fn($d) => $d->acquirePermits('pool', 2, 1, 60);
$H1 = dl_member($uri, $p1, $dir, 'H1', $permit, fn($d) => $d->lock('m', 60, 30));
$H2 = dl_member($uri, $p1, $dir, 'H2', $permit, fn($d) => $d->lock('m', 60, 30));
$V = dl_member($uri, $p1, $dir, 'V', fn($d) => $d->lock('m', 60), fn($d) => $d->acquirePermits('pool', 2, 1, 60, 30));
dl_await($dir, 'H1.held', 'H2.held', 'V.held');
touch("$dir/H1.go"); touch("$dir/H2.go");
lc_wait_until(fn() => (int)$raw->cmd('ZCARD', "{$p1}m{{$p1}m}:waiters") === 2, 10 * $slow);
touch("$dir/V.go");

// 2. A multi-lock: C holds y and waits for x; M holds x and takes y and z at once.
$p2 = "{$p}2:";
$C = dl_member($uri, $p2, $dir, 'C', fn($d) => $d->lock('y', 60), fn($d) => $d->lock('x', 60, 30));
$M = dl_member($uri, $p2, $dir, 'M', fn($d) => $d->lock('x', 60), fn($d) => $d->lockAll(['y', 'z'], 60, 30));
dl_await($dir, 'C.held', 'M.held');
touch("$dir/C.go");
$queued("{$p2}x{{$p2}x}:waiters");
touch("$dir/M.go");

// 3. Writer preference: R reads n and waits for the mutex a, which S holds; X (holding
//    nothing) waits to write n, for R; S then wants n shared and queues behind X. S waits for
//    X, X for R, R for S.
$p3 = "{$p}3:";
$R = dl_member($uri, $p3, $dir, 'R', fn($d) => $d->lockShared('n', 60), fn($d) => $d->lock('a', 60, 30));
$S = dl_member($uri, $p3, $dir, 'S', fn($d) => $d->lock('a', 60), fn($d) => $d->lockShared('n', 60, 30));
$X = dl_member($uri, $p3, $dir, 'X', fn($d) => null, fn($d) => $d->lockExclusive('n', 60, 30));
dl_await($dir, 'R.held', 'S.held', 'X.held');
touch("$dir/R.go");
$queued("{$p3}a{{$p3}a}:waiters");
touch("$dir/X.go");
$queued("{$p3}n{{$p3}n}:waiters");
touch("$dir/S.go");

echo "knot: ", dl_outcome($dir, [$V, $H1, $H2], ['V', 'H1', 'H2']), "\n";
echo "multi-lock: ", dl_outcome($dir, [$C, $M], ['C', 'M']), "\n";
echo "writer preference: ", dl_outcome($dir, [$R, $S, $X], ['R', 'S', 'X']), "\n";
array_map('unlink', glob("$dir/*"));
rmdir($dir);
stop_test_redis_all('426');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('426');
?>
--EXPECT--
knot: DistLock\DeadlockException naming m and pool | granted | granted
multi-lock: DistLock\DeadlockException naming x and y | granted
writer preference: DistLock\DeadlockException naming a and n | granted | granted

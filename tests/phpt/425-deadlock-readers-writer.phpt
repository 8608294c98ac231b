--TEST--
Deadlock detection (issue 47) with readers-writer names: two exclusive leases taken in opposite order are one deadlock (found at the first re-registration, as the first attempt is the registration script); an exclusive waiter waits for every reader (an AND-wait), so one reader in a cycle with it is a deadlock even while another reader could leave; a shared waiter behind a writer that waits for it is one too
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
require __DIR__ . '/inc/deadlock.inc';
$p = 'phpt_425:';
$port = start_test_redis('425');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();
$dir = sys_get_temp_dir() . '/phpt_425_' . getmypid();
@mkdir($dir);

// The three run side by side, each under a prefix of its own: a cycle whose waits are all
// checked from their first re-registration takes up to a block (2 s) to be found.
// 1. Two exclusive leases in opposite order.
$p1 = "{$p}1:";
$x = fn($n) => fn($d) => $d->lockExclusive($n, 60, 30);
$A = dl_member($uri, $p1, $dir, 'A', $x('a'), $x('b'));
$B = dl_member($uri, $p1, $dir, 'B', $x('b'), $x('a'));
dl_await($dir, 'A.held', 'B.held');
touch("$dir/A.go"); touch("$dir/B.go");

// 2. The AND-wait: R1 and R2 read n; R2 then waits for the mutex m, which V holds; V wants n
//    exclusively. R1 could leave, but V needs R2 gone too, and R2 waits for V: a deadlock.
$p2 = "{$p}2:";
$R1 = dl_member($uri, $p2, $dir, 'R1', fn($d) => $d->lockShared('n', 60), null);
$R2 = dl_member($uri, $p2, $dir, 'R2', fn($d) => $d->lockShared('n', 60), fn($d) => $d->lock('m', 60, 30));
dl_await($dir, 'R1.held', 'R2.held');
$V = dl_member($uri, $p2, $dir, 'V', fn($d) => $d->lock('m', 60), fn($d) => $d->lockExclusive('n', 60, 30));
dl_await($dir, 'V.held');
touch("$dir/R2.go");
lc_wait_until(fn() => (int)$raw->cmd('EXISTS', "{$p2}m{{$p2}m}:waiters") === 1, 10 * $slow);
touch("$dir/V.go");

// 3. A shared waiter behind a writer that waits for it: W holds n exclusively and waits for
//    the mutex m; S holds m and wants n shared.
$p3 = "{$p}3:";
$W = dl_member($uri, $p3, $dir, 'W', fn($d) => $d->lockExclusive('n', 60), fn($d) => $d->lock('m', 60, 30));
$S = dl_member($uri, $p3, $dir, 'S', fn($d) => $d->lock('m', 60), fn($d) => $d->lockShared('n', 60, 30));
dl_await($dir, 'W.held', 'S.held');
touch("$dir/W.go");
lc_wait_until(fn() => (int)$raw->cmd('EXISTS', "{$p3}m{{$p3}m}:waiters") === 1, 10 * $slow);
touch("$dir/S.go");

dl_await_any($dir, 'V.out', 'R2.out');
touch("$dir/R1.end");   // R1 leaves only now: V was blocked by R2 alone, R1 being free
echo "exclusive both ways: ", dl_outcome($dir, [$A, $B], ['A', 'B']), "\n";
echo "AND-wait: ", dl_outcome($dir, [$V, $R2, $R1], ['V', 'R2']), "\n";
echo "shared behind a writer: ", dl_outcome($dir, [$W, $S], ['S', 'W']), "\n";
array_map('unlink', glob("$dir/*"));
rmdir($dir);
stop_test_redis_all('425');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('425');
?>
--EXPECT--
exclusive both ways: DistLock\DeadlockException naming a and b | granted
AND-wait: DistLock\DeadlockException naming m and n | granted
shared behind a writer: DistLock\DeadlockException naming m and n | granted

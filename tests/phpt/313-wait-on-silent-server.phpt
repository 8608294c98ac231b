--TEST--
A wait that ends at its deadline with the server silent says so (issue 45.2): a server that stops answering (SIGSTOP) while lock() waits on a held name ends in LockTimeoutException naming the server and how long it was silent, with a ConnectionException as its previous exception, counted in connection_errors; plain contention keeps the plain message; on Redlock the silent master is named
--EXTENSIONS--
distlock
posix
pcntl
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
require __DIR__ . '/inc/proc.inc';
if (redis_server_bin() === null) die('skip redis-server not found');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
// private servers: SIGSTOP must not pause the tests running in parallel
$slow = test_slowdown() * (is_valgrind() ? 4 : 1);
$port = start_test_redis('313');
$pid = (int)trim((string)file_get_contents(test_redis_dir('313') . "/$port.pid"));
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$wait = min(1.0 * $slow, 1.8);              // within one block (its cap is 2 s): the block runs to the deadline

function outcome(callable $f): array {
    $t = microtime(true);
    try {
        $f();
        return ['no exception', null, microtime(true) - $t];
    } catch (Throwable $e) {
        return [$e, $e->getPrevious(), microtime(true) - $t];
    }
}

// 1. Contention alone: the plain message, no previous exception.
$h = new DistLock($uri, ['prefix' => 'p313:']);
$w = new DistLock($uri, ['prefix' => 'p313:', 'timeout' => 1.0]);
$held = $h->lock('x', 30);
[$e, $prev] = outcome(fn () => $w->lock('x', 5, 0.3));
echo "contended: ", get_class($e), ": ", $e->getMessage(), ", previous: ", var_export($prev, true), "\n";

// 2. Held, then silent: the server stops once the waiter is registered and blocked.
$errors = $w->stats()['connection_errors'];
$child = fork_child(function () use ($port, $pid) {
    $r = RawConn::tcp('127.0.0.1', $port);
    for ($i = 0; $i < 500 && (int)$r->cmd('ZCARD', 'p313:x{p313:x}:waiters') === 0; $i++) usleep(10000);
    usleep(100000);                            // the waiter is in its BLPOP
    posix_kill($pid, SIGSTOP);
    return 0;
});
[$e, $prev, $took] = outcome(fn () => $w->lock('x', 5, $wait));
wait_child($child);
posix_kill($pid, SIGCONT);
$m = $e instanceof Throwable ? $e->getMessage() : $e;
$silent = preg_match('/answered nothing for the last ([0-9.]+) s, since ([0-9.]+) s into the wait/', $m, $mm) ? (float)$mm[1] : -1;
echo "silent: ", $e instanceof DistLock\LockTimeoutException ? 'LockTimeoutException' : get_class($e), "\n";
echo "  starts as the timeout: ", var_export(str_starts_with($m, sprintf('Could not acquire the lock "x" within %.3f seconds; ', $wait)), true), "\n";
echo "  names the server: ", var_export(str_contains($m, "Redis at 127.0.0.1:$port answered nothing"), true), "\n";
echo "  silent for most of the wait: ", var_export($silent >= $wait * 0.5 && $silent <= $took + 0.01, true), "\n";
echo "  previous: ", $prev ? get_class($prev) : 'none', ", naming the server: ", var_export($prev && str_contains($prev->getMessage(), "127.0.0.1:$port"), true), "\n";
echo "  counted: ", $w->stats()['connection_errors'] - $errors, " connection error\n";
echo "  ended within its bound and the grace: ", var_export($took < $wait + 0.25 + 0.5 * $slow, true), "\n";
// the server is back: the name is still held, and the next wait is plain contention again
[$e] = outcome(fn () => $w->lock('x', 5, 0.2));
echo "after: ", get_class($e), ": ", $e->getMessage(), "\n";
$held->release();

// 3. Redlock: one master stalled for the whole wait; the two others answer "taken".
$ports = [start_test_redis('313'), start_test_redis('313'), start_test_redis('313')];
$uris = array_map(fn ($q) => "redis://127.0.0.1:$q", $ports);
$rh = new DistLock($uris, ['prefix' => 'p313:']);
$rw = new DistLock($uris, ['prefix' => 'p313:', 'timeout' => 2.0]);
$rheld = $rh->lock('r', 30);                 // a long ttl: each master has min(timeout, ttl / 10) to answer a round
$stalled = (int)trim((string)file_get_contents(test_redis_dir('313') . "/{$ports[2]}.pid"));
posix_kill($stalled, SIGSTOP);
[$e, $prev] = outcome(fn () => $rw->lock('r', 30, $wait));
posix_kill($stalled, SIGCONT);
$m = $e instanceof Throwable ? $e->getMessage() : $e;
echo "Redlock: ", $e instanceof DistLock\LockTimeoutException ? 'LockTimeoutException' : get_class($e),
    ", names the stalled master only: ", var_export(str_contains($m, "Redis at 127.0.0.1:{$ports[2]} answered nothing")
        && !str_contains($m, "127.0.0.1:{$ports[0]}") && !str_contains($m, "127.0.0.1:{$ports[1]}"), true),
    ", previous: ", $prev ? get_class($prev) : "none", "\n";
$rheld->release();
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
foreach (glob(test_redis_dir('313') . '/*.pid') ?: [] as $f) @posix_kill((int)trim((string)@file_get_contents($f)), SIGCONT);
stop_test_redis_all('313');
?>
--EXPECT--
contended: DistLock\LockTimeoutException: Could not acquire the lock "x" within 0.300 seconds, previous: NULL
silent: LockTimeoutException
  starts as the timeout: true
  names the server: true
  silent for most of the wait: true
  previous: DistLock\ConnectionException, naming the server: true
  counted: 1 connection error
  ended within its bound and the grace: true
after: DistLock\LockTimeoutException: Could not acquire the lock "x" within 0.200 seconds
Redlock: LockTimeoutException, names the stalled master only: true, previous: DistLock\ConnectionException

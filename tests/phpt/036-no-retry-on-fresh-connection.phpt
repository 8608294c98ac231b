--TEST--
Timeouts: a command that fails on a connection made for it is not retried; an ambiguous acquire is undone once on a fresh connection
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
// A listening socket that is never read: connect succeeds (kernel backlog), replies never come.
// Counting the connections waiting in its accept queue shows how many the extension opened.
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$port = (int)substr(stream_socket_get_name($srv, false), strrpos(stream_socket_get_name($srv, false), ':') + 1);
function connections($srv): int {
    $n = 0;
    while (($c = @stream_socket_accept($srv, 0)) !== false) { $n++; fclose($c); }
    return $n;
}
// A command that fails on a connection made for it is not retried
// (docs/decisions/0002-reconnect-and-retry-policy.md: idempotent commands are
// retried once only when they fail on a reused connection).
// A 1 s timeout: one timeout (not two) is told apart from a retry's two even
// under valgrind, whose start-up of the first call costs a few hundred ms.
$one = new DistLock("redis://127.0.0.1:$port", ['timeout' => 1.0]);
$t = microtime(true);
try { $one->isLocked('phpt_010:x'); } catch (DistLock\ConnectionException $e) {}
$el = microtime(true) - $t;
echo "isLocked on a fresh connection: ", connections($srv), " connection(s), one timeout long: ", var_export($el >= 0.95 && $el < 1.8, true), "\n";
$d = new DistLock("redis://127.0.0.1:$port", ['timeout' => 0.2]);

// lock(): the acquire's reply never comes; the wait does not turn a network error into a timeout.
// The ambiguous acquire is undone on a fresh connection (one more connection), then it throws.
$t = microtime(true);
try {
    $d->lock('phpt_010:x', 1, 5);
    echo "lock: no exception\n";
} catch (Throwable $e) {
    echo "lock: ", get_class($e), " after < 1.5 s: ", var_export(microtime(true) - $t < 1.5, true), "\n";
}
echo "lock: ", connections($srv), " connections\n";
?>
--EXPECT--
isLocked on a fresh connection: 1 connection(s), one timeout long: true
lock: DistLock\ConnectionException after < 1.5 s: true
lock: 2 connections

--TEST--
Timeouts: a server that accepts but never answers gives ConnectionException after about `timeout` (option, URI, precedence)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
// A listening socket that is never read: connect succeeds (kernel backlog), replies never come.
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$name = stream_socket_get_name($srv, false);
$port = (int)substr($name, strrpos($name, ':') + 1);

foreach ([
    'option timeout 0.2' => new DistLock("redis://127.0.0.1:$port", ['timeout' => 0.2]),
    'URI ?timeout=0.2' => new DistLock("redis://127.0.0.1:$port?timeout=0.2"),
    'URI beats option' => new DistLock("redis://127.0.0.1:$port?timeout=0.2", ['timeout' => 30]),
] as $label => $d) {
    $t = microtime(true);
    try {
        $d->isLocked('phpt_010:x');
        echo "$label: no exception\n";
    } catch (DistLock\ConnectionException $e) {
        $el = microtime(true) - $t;
        printf("%s: ConnectionException after >= 0.19 s: %s, < 1.5 s: %s\n", $label,
            var_export($el >= 0.19, true), var_export($el < 1.5, true));
    }
}

// lock(): the acquire's reply never comes; the wait does not turn a network error into a timeout
$d = new DistLock("redis://127.0.0.1:$port", ['timeout' => 0.2]);
try {
    $d->lock('phpt_010:x', 1, 5);
    echo "lock: no exception\n";
} catch (Throwable $e) {
    echo "lock: ", get_class($e), "\n";
}
?>
--EXPECT--
option timeout 0.2: ConnectionException after >= 0.19 s: true, < 1.5 s: true
URI ?timeout=0.2: ConnectionException after >= 0.19 s: true, < 1.5 s: true
URI beats option: ConnectionException after >= 0.19 s: true, < 1.5 s: true
lock: DistLock\ConnectionException

--TEST--
Secrets: the token given to an unlock<Resource>() helper does not appear in exception traces
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
zend.exception_ignore_args=0
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$port = free_port();
$cases = [
    'connect error' => fn() => (new DistLock("redis://127.0.0.1:$port"))->unlockAccount(1, 'hunter2-token'),
    'bad id type' => fn() => (new DistLock("redis://127.0.0.1:$port"))->unlockAccount([], 'hunter2-token'),
    'too many args' => fn() => (new DistLock("redis://127.0.0.1:$port"))->unlockAccount(1, 'hunter2-token', 3),
];
foreach ($cases as $label => $f) {
    try {
        $f();
        echo "$label: no exception\n";
    } catch (Throwable $e) {
        $all = $e->getMessage() . "\n" . $e->getTraceAsString() . "\n" . print_r($e->getTrace(), true) . "\n" . (string)$e;
        echo "$label: ", get_class($e), str_contains($all, 'hunter2') ? ' LEAKS' : ' clean', "\n";
    }
}
// the id stays useful in the message where it is the problem
try { (new DistLock("redis://127.0.0.1:$port"))->unlockAccount([], 'hunter2-token'); } catch (TypeError $e) { echo $e->getMessage(), "\n"; }
?>
--EXPECT--
connect error: DistLock\ConnectionException clean
bad id type: TypeError clean
too many args: ArgumentCountError clean
DistLock::unlockAccount(): Argument #1 ($id) must be of type string|int, array given

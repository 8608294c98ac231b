--TEST--
Secrets: exception messages and traces (also with zend.exception_ignore_args=0) never contain the password
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
zend.exception_ignore_args=0
display_errors=1
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$port = free_port();
// Secrets are passed straight to the extension (a userland function's own
// arguments would show in the trace; that is not the extension's business).
function use_it(DistLock $d, string $name) { return $d->lock($name, 1, 0); }
$authUri = preg_replace('~^redis://~', 'redis://phpt_nobody:hunter2@', test_uri());

$traces = [];
$cases = [
    'connect error, uri password' => fn() => use_it(new DistLock("redis://user:hunter2@127.0.0.1:$port/"), 'x'),
    'connect error, option password' => fn() => use_it(new DistLock("redis://127.0.0.1:$port", ['password' => 'hunter2']), 'x'),
    'auth error, option password' => fn() => use_it(new DistLock(test_uri(), ['username' => 'phpt_nobody', 'password' => 'hunter2']), 'x'),
    'auth error, uri password' => fn() => use_it(new DistLock($authUri), 'x'),
    'bad uri with password' => fn() => new DistLock("redis://user:hunter2@127.0.0.1:0/"),
    'bad option next to password' => fn() => new DistLock("redis://127.0.0.1:$port", ['password' => 'hunter2', 'ttl' => -1]),
    'unknown option next to password' => fn() => new DistLock("redis://127.0.0.1:$port", ['password' => 'hunter2', 'bogus' => 1]),
    // no TLS in this build: refused at construction; with TLS: the handshake with the plain server fails
    'tls with password' => fn() => (new DistLock("rediss://user:hunter2@127.0.0.1:$port?connect_timeout=0.3"))->tryLock("x"),
    // a token is a bearer credential too
    'restore wrong token' => fn() => (new DistLock(test_uri()))->restore('phpt_026:none', 'hunter2'),
];
foreach ($cases as $label => $f) {
    try {
        $f();
        echo "$label: no exception\n";
    } catch (Throwable $e) {
        $all = $e->getMessage() . "\n" . $e->getTraceAsString() . "\n" . print_r($e->getTrace(), true) . "\n" . (string)$e;
        ob_start(); var_dump($e); $all .= ob_get_clean();
        echo "$label: ", get_class($e), str_contains($all, 'hunter2') ? ' LEAKS' : ' clean', "\n";
        $traces[$label] = $e;
    }
}
// the trace args are really there (ignore_args=0), with the secret parameters redacted
foreach (['bad uri with password', 'bad option next to password', 'restore wrong token'] as $label) {
    $frame = $traces[$label]->getTrace()[0];
    echo "$label: ", $frame['class'], '::', $frame['function'], ' args ', json_encode(array_map('get_debug_type', $frame['args'] ?? [])), "\n";
}
// the error message names host:port for connection errors
echo str_replace((string)$port, 'PORT', $traces['connect error, uri password']->getMessage()), "\n";

// an uncaught exception printed by the engine
register_shutdown_function(function () { echo "\n"; });
use_it(new DistLock("redis://user:hunter2@127.0.0.1:$port/"), 'x');
?>
--EXPECTF--
connect error, uri password: DistLock\ConnectionException clean
connect error, option password: DistLock\ConnectionException clean
auth error, option password: DistLock\ConnectionException clean
auth error, uri password: DistLock\ConnectionException clean
bad uri with password: ValueError clean
bad option next to password: ValueError clean
unknown option next to password: ValueError clean
tls with password: DistLock\ConnectionException clean
restore wrong token: DistLock\LockLostException clean
bad uri with password: DistLock::__construct args ["SensitiveParameterValue"]
bad option next to password: DistLock::__construct args ["SensitiveParameterValue","SensitiveParameterValue"]
restore wrong token: DistLock::restore args ["string","SensitiveParameterValue"]
Cannot connect to Redis at 127.0.0.1:PORT: Connection refused

Fatal error: Uncaught DistLock\ConnectionException: Cannot connect to Redis at 127.0.0.1:%d: Connection refused in %s026-secrets-traces.php:%d
Stack trace:
#0 %s026-secrets-traces.php(%d): DistLock->lock('x', 1, 0)
#1 %s026-secrets-traces.php(%d): use_it(Object(DistLock), 'x')
#2 {main}
  thrown in %s026-secrets-traces.php on line %d

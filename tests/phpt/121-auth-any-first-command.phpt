--TEST--
AUTH: a missing or wrong password reads the same whatever operation comes first on a fresh DistLock (a large script from an unauthenticated client is cut off by Redis, "unauthenticated multibulk length": the connection's first HELLO tells NOAUTH before it); never the password in the message
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
foreach (['DISTLOCK_TEST_REDIS_AUTH_PORT', 'DISTLOCK_TEST_REDIS_PASSWORD'] as $v) {
    if ((string)getenv($v) === '') die("skip $v is not set");
}
?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = (int)env_or_fail('DISTLOCK_TEST_REDIS_AUTH_PORT');
$pw = env_or_fail('DISTLOCK_TEST_REDIS_PASSWORD');
$ops = [
    'tryLock' => fn($d) => $d->tryLock('a', 10),
    'lock' => fn($d) => $d->lock('a', 10, 0),
    'tryLockShared' => fn($d) => $d->tryLockShared('a', 10),
    'lockExclusive' => fn($d) => $d->lockExclusive('a', 10, 0),
    'acquirePermits' => fn($d) => $d->acquirePermits('p', 3, 1, 10, 0),
    'tryAcquirePermits' => fn($d) => $d->tryAcquirePermits('p', 3, 2, 10),
    'lockAll' => fn($d) => $d->lockAll(['a', 'b', 'c', 'd', 'e', 'f'], 10, 0),
    'tryLockAll' => fn($d) => $d->tryLockAll(['a', 'b', 'c', 'd', 'e', 'f'], 10),
    'synchronized' => fn($d) => $d->synchronized('a', fn() => 1, 10, 0),
    'release' => fn($d) => $d->release('a', str_repeat('t', 32)),
    'refresh' => fn($d) => $d->refresh('a', str_repeat('t', 32)),
    'restoreShared' => fn($d) => $d->restoreShared('a', str_repeat('t', 32)),
    'restorePermits' => fn($d) => $d->restorePermits('p', str_repeat('t', 32)),
    'status' => fn($d) => $d->status('a'),
    'isLocked' => fn($d) => $d->isLocked('a'),
    'owner' => fn($d) => $d->owner('a'),
    'permits' => fn($d) => $d->permits('p'),
    'forceRelease' => fn($d) => $d->forceRelease('a'),
];
$wrong = 'not-' . $pw;
foreach (['no password' => "redis://127.0.0.1:$port", 'wrong password' => 'redis://:' . rawurlencode($wrong) . "@127.0.0.1:$port"]
         as $case => $uri) {
    $messages = [];
    $classes = [];
    $leaks = 0;
    foreach ($ops as $name => $op) {
        $d = new DistLock($uri, ['prefix' => 'phpt_121:']);   // a fresh instance: the operation is its first command
        try {
            $op($d);
            $messages['(no exception)'][] = $name;
        } catch (Throwable $e) {
            $m = $e->getMessage();
            $classes[get_class($e)] = true;
            $messages[$m][] = $name;
            $leaks += (int)(str_contains($m, $pw) || str_contains($m, $wrong) || str_contains($m, rawurlencode($pw)));
        }
        unset($e, $d);
    }
    echo "$case: ", count($ops), " operations, ", count($messages), " message(s), class ", implode(', ', array_keys($classes)),
        ", password in a message: $leaks\n";
    foreach ($messages as $m => $names) {
        echo "  ", str_replace((string)$port, 'PORT', $m), count($messages) > 1 ? ' <- ' . implode(', ', $names) : '', "\n";
    }
}
?>
--EXPECT--
no password: 18 operations, 1 message(s), class DistLock\ConnectionException, password in a message: 0
  Authentication failed at Redis 127.0.0.1:PORT: NOAUTH Authentication required (the server has a password and none was given)
wrong password: 18 operations, 1 message(s), class DistLock\ConnectionException, password in a message: 0
  Authentication failed at Redis 127.0.0.1:PORT: WRONGPASS invalid username-password pair or user is disabled.

--TEST--
release() whose reply is lost (server paused past the timeout): the call ends within its bound (issue 27.3) with a ConnectionException naming it; the second attempt goes out without the caller waiting, and the key is released once the server wakes
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
// a private server: DEBUG SLEEP must not pause the tests running in parallel
$port = start_test_redis('307', ['--enable-debug-command', 'local']);
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$p = 'phpt_307:';
$d = new DistLock($uri, ['prefix' => $p, 'timeout' => 0.2]);
$d->tryLock('warm', 10)->release();            // scripts cached
$slow = 0; $named = 0;
$margin = is_valgrind() ? 0.4 : 0.15;
for ($i = 0; $i < 5; $i++) {
    $l = $d->lock("r$i", 30);
    $pauser = RawConn::tcp('127.0.0.1', $port);
    $pauser->send('DEBUG', 'SLEEP', '0.3');
    usleep(20000);                              // the server sleeps; the release's reply comes too late
    $t = hrtime(true);
    try {
        var_dump($l->release());
    } catch (DistLock\ConnectionException $e) {
        $named += (int)str_contains($e->getMessage(), "this call's 0.200 s bound (timeout)");
    }
    $slow += (int)((hrtime(true) - $t) / 1e9 > 0.2 + $margin);
    unset($e);
    $pauser->read();
    $pauser->close();
}
echo "releases past their bound: $slow of 5; ConnectionExceptions naming the bound: $named of 5\n";
$d->isLocked('x');                              // the owed replies are read
echo "keys left: ", count($raw->cmd('KEYS', $p . 'r*')), "\n";
stop_test_redis_all('307');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('307');
?>
--EXPECT--
releases past their bound: 0 of 5; ConnectionExceptions naming the bound: 5 of 5
keys left: 0

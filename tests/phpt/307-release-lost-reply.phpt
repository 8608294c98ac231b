--TEST--
release() whose reply is lost (server paused past the timeout): sent again, and reported true when the first attempt did the release
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
$true = 0;
for ($i = 0; $i < 5; $i++) {
    $l = $d->lock("r$i", 30);
    $pauser = RawConn::tcp('127.0.0.1', $port);
    $pauser->send('DEBUG', 'SLEEP', '0.3');
    usleep(20000);                              // the server sleeps; the release's reply comes too late
    try {
        $true += (int)$l->release();
    } catch (DistLock\ConnectionException $e) {
        echo "ConnectionException: ", $e->getMessage(), "\n";
    }
    $pauser->read();
    $pauser->close();
}
echo "released (true): $true of 5\n";
echo "keys left: ", count($raw->cmd('KEYS', $p . 'r*')), "\n";
echo "lost counted: ", $d->stats()['lost'], "\n";
stop_test_redis_all('307');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('307');
?>
--EXPECT--
released (true): 5 of 5
keys left: 0
lost counted: 0

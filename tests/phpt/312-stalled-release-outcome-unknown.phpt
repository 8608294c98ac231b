--TEST--
A release whose answer never came (issue 37.3): on a stalled server (SIGSTOP) Lock::release(), releaseAll() and release($name, $token) throw a ConnectionException that says the outcome is unknown and what the caller can do; once the server resumes, the release it had received has run: isAcquired() and status() tell so, and a second release() of the handle returns true (its own release ran while the lease was valid: issue 43, phpt 420); after release($name, $token) the handle, which did not make that call, finds its lease lost
--EXTENSIONS--
distlock
posix
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
// a private server: SIGSTOP must not pause the tests running in parallel
$port = start_test_redis('312');
$pid = (int)trim((string)file_get_contents(test_redis_dir('312') . "/$port.pid"));
$uri = "redis://127.0.0.1:$port";
$ops = [
    'Lock::release' => fn($d, $h) => $h->release(),
    'releaseAll' => fn($d, $h) => $d->releaseAll([$h]),
    'release(name, token)' => fn($d, $h) => $d->release('n', $h->token()),
];
$i = 0;
foreach ($ops as $what => $op) {
    $d = new DistLock($uri, ['prefix' => 'phpt_312:' . $i++ . ':', 'timeout' => 0.3, 'watchdog' => false]);
    $h = $d->lock('n', 30);
    posix_kill($pid, SIGSTOP);
    try {
        $op($d, $h);
        echo "$what: no exception\n";
    } catch (DistLock\ConnectionException $e) {
        $m = $e->getMessage();
        echo "$what: ConnectionException",
            str_contains($m, "the release's outcome is unknown: the server may have released the lease or not") ? ', outcome unknown' : '',
            str_contains($m, 'It ends by its TTL at the latest; isAcquired() or status() tells whether it is still held') ? ', what to do' : '',
            "\n";
    }
    unset($e);
    posix_kill($pid, SIGCONT);
    // the server had the release in its input: it runs it once resumed. On a
    // loaded machine the resumed server can take longer than the 0.3 s bound
    // to answer the first call: that call throws, the next one asks again.
    $gone = false;
    for ($t = 0; $t < 250 && !$gone; $t++) {
        try {
            $gone = !$d->status('n')['locked'];
        } catch (DistLock\ConnectionException) {
        }
        if (!$gone) usleep(20000);
    }
    echo "  after the resume: locked=", var_export(!$gone, true), ", isAcquired()=", var_export($h->isAcquired(), true),
        ", release() again=", var_export($h->release(), true), "\n";
    unset($h, $d);
}
// a connection refused before anything was sent: the outcome is known (not released), no such words
$d = new DistLock($uri, ['prefix' => 'phpt_312:x:', 'timeout' => 0.3, 'watchdog' => false]);
$h = $d->lock('n', 30);
stop_test_redis_all('312');
// kill -9 takes effect a little later on a loaded machine: until the process is
// gone, its end of the connection is open and a release written to it has an
// unknown outcome (rightly). Wait until the port refuses connections.
for ($t = 0; $t < 500; $t++) {
    $s = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.2);
    if ($s === false) break;
    fclose($s);
    usleep(10000);
}
try {
    $h->release();
} catch (DistLock\ConnectionException $e) {
    echo "server gone: ConnectionException", str_contains($e->getMessage(), 'outcome is unknown') ? ', outcome unknown' : '', "\n";
}
unset($e, $h, $d);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('312');
?>
--EXPECT--
Lock::release: ConnectionException, outcome unknown, what to do
  after the resume: locked=false, isAcquired()=false, release() again=true
releaseAll: ConnectionException, outcome unknown, what to do
  after the resume: locked=false, isAcquired()=false, release() again=true
release(name, token): ConnectionException, outcome unknown, what to do
  after the resume: locked=false, isAcquired()=false, release() again=false
server gone: ConnectionException

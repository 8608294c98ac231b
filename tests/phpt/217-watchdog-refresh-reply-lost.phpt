--TEST--
watchdog: a refresh($ttl) to a shorter ttl whose reply is lost (ConnectionException) but which landed is followed by the watchdog: it renews within the shorter ttl, so the lease lives on
--DESCRIPTION--
The server sleeps (DEBUG SLEEP) while Lock::refresh($short) and
DistLock::refresh($name, $token, $short) wait for their reply: the call
throws ConnectionException at its timeout, and the server runs the refresh
when it wakes, so the key holds the short ttl. A watchdog still on the long
ttl would renew a third of it after the grant, long after the key expired
(tests/model/watchdog.pml, BREAK_ERROR_KEEPS); told the new ttl whatever
the reply, it renews every third of the short one.
--EXTENSIONS--
distlock
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
require __DIR__ . '/inc/lifecycle.inc';
// a private server: its DEBUG SLEEP must not slow down tests running in parallel
$port = start_test_redis('217', ['--enable-debug-command', 'local']);
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$prefix = 'phpt_217:';
$s = lc_slow();
$long = 15.0 * $s;    // renewed every 5 s: long after the short ttl below has run out
$short = 1.5 * $s;    // renewed every 0.5 s
$shortMs = (int)ceil($short * 1000);   // the ttl in ms the extension sends (rounded up)
$dl = new DistLock($uri, ['prefix' => $prefix, 'watchdog' => true, 'timeout' => 0.2 * $s]);

/* Returns once the server no longer answers a PING within 20 ms (DEBUG SLEEP has
 * begun); the probe owes one PONG, read after the server wakes. */
function await_asleep(int $port) {
    $probe = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2.0);
    $deadline = microtime(true) + 10;
    while (microtime(true) < $deadline) {
        fwrite($probe, "PING\r\n");
        $r = [$probe]; $w = $e = null;
        if (stream_select($r, $w, $e, 0, 20000) === 0) return $probe;
        fgets($probe);
    }
    throw new RuntimeException('the server never fell asleep');
}

foreach (['Lock::refresh', 'DistLock::refresh'] as $how) {
    $name = "t:$how";
    $l = $dl->lock($name, $long);         // and the connection is up (the first trial's was dropped at its timeout)
    /* The refresh script into the server's cache: the refresh below goes out by
     * EVALSHA, and on a fresh server the one that times out would get NOSCRIPT
     * when the server wakes; only its second attempt (EVAL, written on a new
     * connection within a 5 ms grace, or kept for the next call) would land
     * it, racing the PTTL below (seen once in CI, under load). */
    $l->refresh($long);
    $pauser = RawConn::tcp('127.0.0.1', $port);
    $pauser->send('DEBUG', 'SLEEP', (string)(0.5 * $s));
    $probe = await_asleep($port);
    try {
        $how === 'Lock::refresh' ? $l->refresh($short) : $dl->refresh($name, $l->token(), $short);
        echo "$how: no exception (the server did not sleep?)\n";
    } catch (DistLock\ConnectionException $e) {
        echo "$how: ConnectionException\n";
    }
    $pauser->read();                       // awake: the refresh has run
    fgets($probe);
    fclose($probe);
    $pttl = $raw->cmd('PTTL', $prefix . $name);
    echo "  the short ttl landed: ", var_export($pttl > 0 && $pttl <= $shortMs, true), "\n";
    if (!($pttl > 0 && $pttl <= $shortMs)) echo "  (PTTL $pttl ms; short ttl $shortMs ms)\n";
    usleep((int)(2 * $short * 1e6));       // twice the short ttl: only renewals keep the key
    $pttl = $raw->cmd('PTTL', $prefix . $name);
    $held = $raw->cmd('GET', $prefix . $name) === $l->token();
    echo "  held after twice the short ttl: ", var_export($held, true),
        ", renewed with the short ttl: ", var_export($pttl > 0 && $pttl <= $shortMs, true), "\n";
    if (!$held || $pttl > $shortMs) echo "  (PTTL $pttl ms; short ttl $shortMs ms)\n";
    echo "  released: ", var_export($l->release(), true), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('217');
?>
--EXPECT--
Lock::refresh: ConnectionException
  the short ttl landed: true
  held after twice the short ttl: true, renewed with the short ttl: true
  released: true
DistLock::refresh: ConnectionException
  the short ttl landed: true
  held after twice the short ttl: true, renewed with the short ttl: true
  released: true

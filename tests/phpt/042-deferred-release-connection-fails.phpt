--TEST--
Deferred release: when the connection fails before its reply is read, the release is sent again on a fresh connection first (the lease is still released)
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proxy.inc';
$p = 'phpt_042:';
raw_redis_del_prefix($p);
[, $port] = test_host_port();
$proxy = proxy_start((int)$port);
$d = new DistLock("redis://127.0.0.1:{$proxy['port']}", ['prefix' => $p]);

foreach (['held', 'expired'] as $case) {
    $l = $d->lock($case, $case === 'held' ? 30 : 0.6);
    $tok = $l->token();
    proxy_mode($proxy, 'swallow');
    $before = $d->stats();
    unset($l);                                   // the release is written into the proxy, and dropped
    usleep(100000);
    echo "$case: the release did not reach the server: ", var_export(raw_redis('GET', $p . $case) === $tok, true), "\n";
    if ($case === 'expired') usleep(700000);     // the lease ends before anything is read
    proxy_mode($proxy, 'cut');                   // the connection drops with the reply owed
    var_dump($d->isLocked($case));               // the next command: the release again, then EXISTS
    $after = $d->stats();
    echo "$case: key left: ", raw_redis('EXISTS', $p . $case),
         ", released +", $after['released'] - $before['released'], ", lost +", $after['lost'] - $before['lost'],
         ", connection errors +", $after['connection_errors'] - $before['connection_errors'], "\n";
}

// the same with two releases owed: both are sent again, in order, before the next command
$a = $d->lock('two-a', 30);
$b = $d->lock('two-b', 30);
proxy_mode($proxy, 'swallow');
unset($a, $b);
usleep(100000);
echo "both still held: ", raw_redis('EXISTS', $p . 'two-a') + raw_redis('EXISTS', $p . 'two-b'), "\n";
proxy_mode($proxy, 'cut');
$l = $d->tryLock('two-a', 5);
echo "next lock of the same name granted: ", var_export($l !== null, true), ", two-b left: ", raw_redis('EXISTS', $p . 'two-b'), "\n";
unset($l);
proxy_stop($proxy);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_042:');
?>
--EXPECT--
held: the release did not reach the server: true
bool(false)
held: key left: 0, released +1, lost +0, connection errors +0
expired: the release did not reach the server: true
bool(false)
expired: key left: 0, released +0, lost +1, connection errors +0
both still held: 2
next lock of the same name granted: true, two-b left: 0

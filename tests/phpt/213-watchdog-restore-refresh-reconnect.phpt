--TEST--
watchdog: renews over its own connection, which is replaced when the server kills it (the lease survives); a restore()d lease is renewed too; refresh(ttl) changes the renewal ttl
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_213:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();
$base = lc_own_ports();

// 1. the watchdog's own connection (the first watchdog lease of this process makes it)
$wd = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'ttl' => 0.6]);
$wd->isLocked('x');                          // the PHP side's connection
$phpSide = lc_ext_ports($base);
// The lease must outlive a reconnect of the watchdog's thread: its ttl and the
// waits scale by the measured slowdown (a 0.9 s lease loses to a starved
// thread on a loaded machine: seen beside a lane's cold builds).
$ttl = 0.9 * $slow;
$k = $wd->lock('survivor', $ttl);
usleep((int)(500000 * $slow));               // renewed once at least: the watchdog has connected
$wdConn = array_values(array_diff(lc_ext_ports($base), $phpSide));
echo "PHP side: ", count($phpSide), ", watchdog: ", count($wdConn), "\n";
$e = client_entry($wdConn[0]);
// EVALSHA, or EVAL right after a SCRIPT FLUSH (another test may flush meanwhile),
// or where the server has it SET ... IFEQ (Redis >= 8.4, Valkey >= 8.1): a fresh
// connection takes it from its first renewal when the process has asked the server
echo "watchdog renews: ", var_export(in_array($e['cmd'] ?? '-', ['evalsha', 'eval', 'set'], true), true), "\n";
echo "killed: ", raw_redis('CLIENT', 'KILL', 'ID', $e['id']), "\n";
usleep((int)(1500000 * $slow));              // several renewals later
[$holds, $pttl] = lc_key_state($prefix . 'survivor', $k->token());
echo "survived: ", var_export($holds && $pttl > 0 && $pttl <= (int)ceil($ttl * 1000), true), "\n";
$now = array_values(array_diff(lc_ext_ports($base), $phpSide));
echo "watchdog reconnected: ", var_export(count($now) === 1 && $now !== $wdConn, true), "\n";
echo "PHP side untouched: ", var_export(array_values(array_intersect(lc_ext_ports($base), $phpSide)) === $phpSide, true), "\n";
var_dump($k->release());

// 2. restore(): a lease of another owner (here: set raw, 0.6 s) adopted by a watchdog instance
$adoptMs = (int)(600 * $slow);
raw_redis('SET', $prefix . 'adopted', 'token-of-a-worker', 'PX', $adoptMs);
$adopted = $wd->restore('adopted', 'token-of-a-worker');
usleep((int)(1500000 * $slow));
[$holds, $pttl] = lc_key_state($prefix . 'adopted', 'token-of-a-worker');
echo "adopted lease renewed: ", var_export($holds && $pttl > 0 && $pttl <= $adoptMs, true), "\n";
var_dump($adopted->release(), raw_redis('EXISTS', $prefix . 'adopted'));

// 3. refresh(ttl) on a watchdog lease: the renewals use the new ttl
$l = $wd->lock('refreshed', 0.6);
var_dump($l->refresh(2.4));
$t = lc_now();
$seen = lc_wait_until(function () use ($prefix, $t) {
    $before = lc_now();
    $p = raw_redis('PTTL', $prefix . 'refreshed');
    // unrenewed it is below 2400 - 900 from 0.9 s on; renewed with 0.6 s it is at most 600
    return $before - $t > 0.9 && $p > 1500;
}, 3.0 * $slow, 0.05);
echo "renewed with the refreshed ttl: ", var_export($seen !== null, true), "\n";
var_dump($l->refresh(0.6));
usleep(700000);
$p = raw_redis('PTTL', $prefix . 'refreshed');
echo "back to 0.6 s: ", var_export($p > 0 && $p <= 600, true), "\n";
var_dump($l->release());
echo "connection errors: ", $wd->stats()['connection_errors'], "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_213:');
?>
--EXPECT--
PHP side: 1, watchdog: 1
watchdog renews: true
killed: 1
survived: true
watchdog reconnected: true
PHP side untouched: true
bool(true)
adopted lease renewed: true
bool(true)
int(0)
bool(true)
renewed with the refreshed ttl: true
bool(true)
back to 0.6 s: true
bool(true)
connection errors: 0

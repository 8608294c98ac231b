--TEST--
lost detection (on_lost ignore): the watchdog finds a lease taken over or deleted within one renewal period; isAcquired()/release()/refresh() false, stats()['lost'] counts it
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
$prefix = 'phpt_205:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();

$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);   // on_lost: 'ignore' by default
$stolen = $dl->lock('stolen', 0.6);
$deleted = $dl->lock('deleted', 0.6);
$kept = $dl->lock('kept', 0.6);
usleep(300000);
$s0 = $dl->stats();

// another owner overwrites one key; the other key disappears
var_dump(raw_redis('SET', $prefix . 'stolen', 'someone-else', 'PX', 10000));
var_dump(raw_redis('DEL', $prefix . 'deleted'));

// the watchdog notices both at its next renewal (every ttl/3 = 0.2 s), without any call of ours
$took = lc_wait_until(fn () => $dl->stats()['lost'] - $s0['lost'] >= 2, 0.2 + 1.0 * $slow);
echo "found lost by the watchdog: ", var_export($took !== null, true), "\n";
echo "within one period + margin: ", var_export($took !== null && $took <= 0.2 + 0.5 * $slow, true), "\n";

var_dump($stolen->isAcquired(), $stolen->remainingLifetime(), $stolen->refresh(), $stolen->release(), $stolen->release());
var_dump($deleted->isAcquired(), $deleted->refresh(), $deleted->release());
echo "lost counted once each: ", $dl->stats()['lost'] - $s0['lost'], "\n";

// the other owner's key is untouched: not deleted, not renewed by us
var_dump(raw_redis('GET', $prefix . 'stolen'));
$p = raw_redis('PTTL', $prefix . 'stolen');
var_dump($p > 0 && $p <= 10000);
var_dump(raw_redis('EXISTS', $prefix . 'deleted'));

// the lost leases are no longer renewed; the third one still is (one lease per round trip now)
$r0 = $dl->stats();
usleep(700000);
$r1 = $dl->stats();
echo "renewals == round trips (only 'kept' renewed): ", var_export($r1['renewals'] - $r0['renewals'] === $r1['renewal_round_trips'] - $r0['renewal_round_trips'] && $r1['renewals'] > $r0['renewals'], true), "\n";
var_dump(raw_redis('GET', $prefix . 'stolen'), raw_redis('PTTL', $prefix . 'stolen') <= $p);

// the instance can take the names again (as a new owner)
$again = $dl->lock('deleted', 5, 0);
var_dump($again->isAcquired(), $again->release());
var_dump($kept->isAcquired(), $kept->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_205:');
?>
--EXPECT--
string(2) "OK"
int(1)
found lost by the watchdog: true
within one period + margin: true
bool(false)
float(0)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
lost counted once each: 2
string(12) "someone-else"
bool(true)
int(0)
renewals == round trips (only 'kept' renewed): true
string(12) "someone-else"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)

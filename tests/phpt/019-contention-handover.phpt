--TEST--
lock() under contention: the waiter gets the name once the holder's lease expires or is released
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$holder = new DistLock(test_uri(), ['prefix' => 'phpt_019:']);
$waiter = new DistLock(test_uri(), ['prefix' => 'phpt_019:']);

// holder's short lease runs out while the waiter waits (the holder never releases)
$h = $holder->lock('e', 0.3);
$t = microtime(true);
$w = $waiter->lock('e', 5, 2);
$el = microtime(true) - $t;
echo "acquired after expiry: >= 0.2 s: ", var_export($el >= 0.2, true), ", < 1.5 s: ", var_export($el < 1.5, true), "\n";
var_dump(raw_redis('GET', 'phpt_019:e') === $w->token());
$pttl = raw_redis('PTTL', 'phpt_019:e');
echo "waiter's own ttl: ", var_export($pttl > 4500 && $pttl <= 5000, true), "\n";
var_dump($h->isAcquired(), $h->release(), $w->isAcquired());   // old holder lost it, cannot delete it
var_dump($w->release());

// a key set by a foreign client (not a distlock token): the waiter waits for it to expire
raw_redis('SET', 'phpt_019:f', 'foreign', 'PX', 400);
$t = microtime(true);
$w = $waiter->lock('f', 2, 2);
$el = microtime(true) - $t;
echo "foreign key expired: >= 0.3 s: ", var_export($el >= 0.3, true), ", < 1.5 s: ", var_export($el < 1.5, true), "\n";
var_dump($w->release());

// wait shorter than the remaining lease: timeout, not success
$h = $holder->lock('g', 1);
try { $waiter->lock('g', 1, 0.2); echo "acquired?!\n"; } catch (DistLock\LockTimeoutException $e) { echo "timeout\n"; }
var_dump($h->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_019:');
?>
--EXPECT--
acquired after expiry: >= 0.2 s: true, < 1.5 s: true
bool(true)
waiter's own ttl: true
bool(false)
bool(false)
bool(true)
bool(true)
foreign key expired: >= 0.3 s: true, < 1.5 s: true
bool(true)
timeout
bool(true)

--TEST--
Reentrancy: the same instance gets another handle on the same lease; the key goes with the last handle
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_020:']);
$other = new DistLock(test_uri(), ['prefix' => 'phpt_020:']);

$a = $d->lock('r', 2);
usleep(200000);
$t = microtime(true);
$b = $d->lock('r', 3, 5);     // held by ourselves: at once, no waiting
echo "immediate: ", var_export(microtime(true) - $t < 0.1, true), "\n";
var_dump($a !== $b, $a->token() === $b->token(), raw_redis('GET', 'phpt_020:r') === $a->token());
$pttl = raw_redis('PTTL', 'phpt_020:r');
echo "lease refreshed to the new ttl 3: ", var_export($pttl > 2700 && $pttl <= 3000, true), "\n";
$c = $d->tryLock('r');        // tryLock is reentrant too
var_dump($c instanceof DistLock\Lock && $c->token() === $a->token());

// another instance (a different owner) cannot take it meanwhile
var_dump($other->tryLock('r'));
try { $other->lock('r', 1, 0.1); echo "acquired?!\n"; } catch (DistLock\LockTimeoutException $e) { echo "other: timeout\n"; }

// release order does not matter; the key is deleted with the last handle
var_dump($a->release(), raw_redis('EXISTS', 'phpt_020:r'), $b->isAcquired());
var_dump($a->release());      // idempotent per handle: does not consume another handle's count
var_dump(raw_redis('EXISTS', 'phpt_020:r'));
var_dump($c->release(), raw_redis('EXISTS', 'phpt_020:r'), $other->tryLock('r'));
var_dump($b->release(), raw_redis('EXISTS', 'phpt_020:r'));
var_dump($b->release(), $a->isAcquired(), $b->isAcquired());
$x = $other->tryLock('r');
var_dump($x instanceof DistLock\Lock);
var_dump($x->release());

// synchronized inside a held lock
$outer = $d->lock('s', 2);
var_dump($d->synchronized('s', fn($l) => $l->token() === $outer->token()));
var_dump(raw_redis('GET', 'phpt_020:s') === $outer->token());   // inner release kept the outer lease
var_dump($outer->release(), raw_redis('EXISTS', 'phpt_020:s'));

// an expired lease is not "held by us" any more: a new grant with a new token
$e1 = $d->lock('e', 0.05);
usleep(120000);
$e2 = $d->lock('e', 2, 0);
var_dump($e2->token() !== $e1->token(), $e1->release(), raw_redis('GET', 'phpt_020:e') === $e2->token());
var_dump($e2->release());
// a lease taken over by another owner: lock() by the old owner waits like anyone else
$t1 = $d->lock('t', 0.05);
usleep(120000);
$t2 = $other->lock('t', 5);
var_dump($d->tryLock('t'));
var_dump($t1->release(), $t2->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_020:');
?>
--EXPECT--
immediate: true
bool(true)
bool(true)
bool(true)
lease refreshed to the new ttl 3: true
bool(true)
NULL
other: timeout
bool(true)
int(1)
bool(true)
bool(false)
int(1)
bool(true)
int(1)
NULL
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(false)
bool(true)
bool(true)
NULL
bool(false)
bool(true)

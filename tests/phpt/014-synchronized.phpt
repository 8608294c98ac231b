--TEST--
synchronized(): passes the Lock, returns the callback's value, releases always, rethrows
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
; These checks look from another connection right after an implicit release:
; confirmed releases (the deferred ones are tested, deterministically, by 041-043).
distlock.defer_release=0
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_014:']);
$other = new DistLock(test_uri(), ['prefix' => 'phpt_014:']);

$t0 = hrtime(true);
$r = $d->synchronized('s', function ($lock) use ($other, $t0) {
    echo "in callback: ", get_class($lock), " ", $lock->name(), "\n";
    echo "key holds its token: ", var_export(raw_redis('GET', 'phpt_014:s') === $lock->token(), true), "\n";
    $pttl = raw_redis('PTTL', 'phpt_014:s');
    // 2 s less what has passed since the call (under valgrind on a loaded machine, a lot)
    $since = (hrtime(true) - $t0) / 1e6;
    echo "ttl 2: ", var_export($pttl >= 2000 - $since - 50 && $pttl <= 2000, true), "\n";
    echo "other owner blocked: ", var_export($other->tryLock('s') === null, true), "\n";
    return ['value' => 42];
}, 2);
var_dump($r, raw_redis('EXISTS', 'phpt_014:s'));

// a closure with no parameter is fine; return values of any type come back
var_dump($d->synchronized('s', fn() => null));
var_dump($d->synchronized('s', fn() => 3.5));
class Counter { public function count(DistLock\Lock $l): int { return strlen($l->name()) + 1; } }
var_dump($d->synchronized('s', [new Counter, 'count']));

// the callback throws: released, rethrown unchanged
$e0 = new LogicException('boom', 7);
try {
    $d->synchronized('s', function () use ($e0) { throw $e0; });
} catch (LogicException $e) {
    var_dump($e === $e0, $e->getMessage(), $e->getCode());
}
var_dump(raw_redis('EXISTS', 'phpt_014:s'));

// held by another owner: LockTimeoutException after the wait, callback never runs
$h = $other->lock('s', 5);
$ran = false;
$t = microtime(true);
try {
    $d->synchronized('s', function () use (&$ran) { $ran = true; }, 1, 0.2);
} catch (DistLock\LockTimeoutException $e) {
    echo "timeout after >= 0.19 s: ", var_export(microtime(true) - $t >= 0.19, true), "\n";
}
var_dump($ran, raw_redis('GET', 'phpt_014:s') === $h->token());
var_dump($h->release());

// the callback releases the lock itself: no error afterwards
var_dump($d->synchronized('s', function ($l) { return $l->release(); }));
var_dump(raw_redis('EXISTS', 'phpt_014:s'));

// nested on the same name with the same instance: reentrant
var_dump($d->synchronized('s', fn() => $d->synchronized('s', fn() => raw_redis('EXISTS', 'phpt_014:s'))));
var_dump(raw_redis('EXISTS', 'phpt_014:s'));

// not callable: TypeError
try { $d->synchronized('s', 'no_such_function_phpt'); } catch (TypeError $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
var_dump(raw_redis('EXISTS', 'phpt_014:s'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_014:');
?>
--EXPECT--
in callback: DistLock\Lock s
key holds its token: true
ttl 2: true
other owner blocked: true
array(1) {
  ["value"]=>
  int(42)
}
int(0)
NULL
float(3.5)
int(2)
bool(true)
string(4) "boom"
int(7)
int(0)
timeout after >= 0.19 s: true
bool(false)
bool(true)
bool(true)
bool(true)
int(0)
int(1)
int(0)
TypeError: DistLock::synchronized(): Argument #2 ($callback) must be a valid callback, function "no_such_function_phpt" not found or invalid function name
int(0)

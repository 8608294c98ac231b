--TEST--
Objects: Lock not constructible; no clone, no serialize, no dynamic properties
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
function t(string $what, callable $f) {
    try {
        $r = $f();
        echo "$what: no exception, got ", get_debug_type($r), "\n";
    } catch (Throwable $e) {
        echo "$what: ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
$d = new DistLock(test_uri(), ['prefix' => 'phpt_002:']);
$l = $d->lock('obj', 5);

t('new Lock', fn() => new DistLock\Lock());
t('newInstanceWithoutConstructor', fn() => (new ReflectionClass('DistLock\Lock'))->newInstanceWithoutConstructor());
t('clone DistLock', fn() => clone $d);
t('clone Lock', fn() => clone $l);
t('serialize DistLock', fn() => serialize($d));
t('serialize Lock', fn() => serialize($l));
t('unserialize DistLock', fn() => unserialize('O:8:"DistLock":0:{}'));
t('unserialize Lock', fn() => unserialize('O:13:"DistLock\Lock":0:{}'));
t('dynamic property DistLock', function () use ($d) { $d->foo = 1; });
t('dynamic property Lock', function () use ($l) { $l->foo = 1; });
t('construct twice', fn() => $d->__construct(test_uri()));

// the handle is still fine after all of that
var_dump($l->isAcquired(), $l->release(), raw_redis('EXISTS', 'phpt_002:obj'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_002:');
?>
--EXPECTF--
new Lock: Error: Cannot directly construct DistLock\Lock%s
newInstanceWithoutConstructor: %rError|ReflectionException%r: %s
clone DistLock: Error: Trying to clone an uncloneable object of class DistLock
clone Lock: Error: Trying to clone an uncloneable object of class DistLock\Lock
serialize DistLock: Exception: Serialization of 'DistLock' is not allowed
serialize Lock: Exception: Serialization of 'DistLock\Lock' is not allowed
unserialize DistLock: Exception: Unserialization of 'DistLock' is not allowed
unserialize Lock: Exception: Unserialization of 'DistLock\Lock' is not allowed
dynamic property DistLock: Error: Cannot create dynamic property DistLock::$foo
dynamic property Lock: Error: Cannot create dynamic property DistLock\Lock::$foo
construct twice: Error: %s
bool(true)
bool(true)
int(0)

--TEST--
__call helpers: unknown shapes are Error "Call to undefined method"; argument count and type errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_032:']);
function t(string $label, callable $f) {
    try {
        $r = $f();
        echo "$label: returned ", get_debug_type($r), "\n";
        if ($r instanceof DistLock\Lock) $r->release();
    } catch (Throwable $e) {
        echo "$label: ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
echo "--- not helper shapes\n";
t('fooBar', fn() => $d->fooBar(1));
t('lock (no resource)', fn() => $d->__call('lock', [1]));
t('unlock (no resource)', fn() => $d->unlock(1, 'x'));
t('tryLock via __call', fn() => $d->__call('tryLock', [1]));
t('lockaccount (method names are case-insensitive): ' . $d->lockaccount(1)->name(), fn() => null);
t('lock_account', fn() => $d->lock_account(1));
t('lock1', fn() => $d->lock1(1));
t('releaseAccount', fn() => $d->releaseAccount(1));
t('getLockAccount', fn() => $d->getLockAccount(1));
t('static', fn() => DistLock::lockAccount(1));
echo "--- argument counts\n";
t('lockAccount()', fn() => $d->lockAccount());
t('lockAccount(1,2,3,4)', fn() => $d->lockAccount(1, 2, 3, 4));
t('tryLockAccount()', fn() => $d->tryLockAccount());
t('tryLockAccount(1,2,3)', fn() => $d->tryLockAccount(1, 2, 3));
t('unlockAccount(1)', fn() => $d->unlockAccount(1));
t('unlockAccount(1,"t",3)', fn() => $d->unlockAccount(1, 't', 3));
echo "--- argument types and values\n";
t('lockAccount([])', fn() => $d->lockAccount([]));
t('lockAccount(null)', fn() => $d->lockAccount(null));
t('lockAccount(1.5)', fn() => $d->lockAccount(1.5));
t('lockAccount(true)', fn() => $d->lockAccount(true));
t('lockAccount(object)', fn() => $d->lockAccount(new stdClass));
t('tryLockAccount([])', fn() => $d->tryLockAccount([]));
t('unlockAccount([], "t")', fn() => $d->unlockAccount([], 't'));
t('unlockAccount(1, [])', fn() => $d->unlockAccount(1, []));
t('unlockAccount(1, "")', fn() => $d->unlockAccount(1, ''));
t('unlockAccount(1, 129 bytes)', fn() => $d->unlockAccount(1, str_repeat('a', 129)));
t('lockAccount(1, -1)', fn() => $d->lockAccount(1, -1));
t('lockAccount(1, "x")', fn() => $d->lockAccount(1, 'x'));
t('lockAccount(1, 1, -1)', fn() => $d->lockAccount(1, 1, -1));
t('lockAccount(1, 1, NAN)', fn() => $d->lockAccount(1, 1, NAN));
t('tryLockAccount(1, INF)', fn() => $d->tryLockAccount(1, INF));
t('lockAccount(1025-byte id)', fn() => $d->lockAccount(str_repeat('i', 1025)));
echo "--- nulls mean defaults\n";
t('lockAccount(1, null, null)', fn() => $d->lockAccount(1, null, null));
t('tryLockAccount(1, null)', fn() => $d->tryLockAccount(1, null));
echo "--- nothing was left behind\n";
var_dump(raw_redis_del_prefix('phpt_032:'));
echo "--- bad resources options\n";
t('resources not keyed', fn() => new DistLock('redis://127.0.0.1', ['resources' => [['ttl' => 1]]]));
t('resources unknown key', fn() => new DistLock('redis://127.0.0.1', ['resources' => ['account' => ['prefix' => 'x']]]));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_032:');
?>
--EXPECTF--
--- not helper shapes
fooBar: Error: Call to undefined method DistLock::fooBar()
lock (no resource): Error: Call to undefined method DistLock::lock()
unlock (no resource): Error: Call to undefined method DistLock::unlock()
tryLock via __call: Error: Call to undefined method DistLock::tryLock()
lockaccount (method names are case-insensitive): account:1: returned null
lock_account: Error: Call to undefined method DistLock::lock_account()
lock1: Error: Call to undefined method DistLock::lock1()
releaseAccount: Error: Call to undefined method DistLock::releaseAccount()
getLockAccount: Error: Call to undefined method DistLock::getLockAccount()
static: Error: Call to undefined method DistLock::lockAccount()
--- argument counts
lockAccount(): ArgumentCountError: DistLock::lockAccount() expects at least 1 argument, 0 given
lockAccount(1,2,3,4): ArgumentCountError: DistLock::lockAccount() expects at most 3 arguments, 4 given
tryLockAccount(): ArgumentCountError: DistLock::tryLockAccount() expects at least 1 argument, 0 given
tryLockAccount(1,2,3): ArgumentCountError: DistLock::tryLockAccount() expects at most 2 arguments, 3 given
unlockAccount(1): ArgumentCountError: DistLock::unlockAccount() expects exactly 2 arguments, 1 given
unlockAccount(1,"t",3): ArgumentCountError: DistLock::unlockAccount() expects exactly 2 arguments, 3 given
--- argument types and values
lockAccount([]): TypeError: DistLock::lockAccount(): Argument #1 ($id) must be of type string|int, array given
lockAccount(null): TypeError: DistLock::lockAccount(): Argument #1 ($id) must be of type string|int, null given
lockAccount(1.5): TypeError: DistLock::lockAccount(): Argument #1 ($id) must be of type string|int, float given
lockAccount(true): TypeError: DistLock::lockAccount(): Argument #1 ($id) must be of type string|int, bool given
lockAccount(object): TypeError: DistLock::lockAccount(): Argument #1 ($id) must be of type string|int, stdClass given
tryLockAccount([]): TypeError: DistLock::tryLockAccount(): Argument #1 ($id) must be of type string|int, array given
unlockAccount([], "t"): TypeError: DistLock::unlockAccount(): Argument #1 ($id) must be of type string|int, array given
unlockAccount(1, []): TypeError: DistLock::unlockAccount(): Argument #2 ($token) must be of type string, array given
unlockAccount(1, ""): ValueError: DistLock::unlockAccount(): Argument #2 ($token) %s
unlockAccount(1, 129 bytes): ValueError: DistLock::unlockAccount(): Argument #2 ($token) %s
lockAccount(1, -1): ValueError: DistLock::lockAccount(): Argument #2 ($ttl) %s
lockAccount(1, "x"): TypeError: DistLock::lockAccount(): Argument #2 ($ttl) must be of type ?float, string given
lockAccount(1, 1, -1): ValueError: DistLock::lockAccount(): Argument #3 ($wait) %s
lockAccount(1, 1, NAN): ValueError: DistLock::lockAccount(): Argument #3 ($wait) %s
tryLockAccount(1, INF): ValueError: DistLock::tryLockAccount(): Argument #2 ($ttl) %s
lockAccount(1025-byte id): ValueError: DistLock::lockAccount(): Argument #1 ($id) %s
--- nulls mean defaults
lockAccount(1, null, null): returned DistLock\Lock
tryLockAccount(1, null): returned DistLock\Lock
--- nothing was left behind
int(0)
--- bad resources options
resources not keyed: ValueError: DistLock::__construct(): Argument #2 ($options) %s
resources unknown key: ValueError: DistLock::__construct(): Argument #2 ($options) %s

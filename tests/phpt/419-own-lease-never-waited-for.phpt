--TEST--
An instance never waits for its own lease (issue 37.1): exclusive after shared is an upgrade (promoted at once when it is the only reader, a LogicException at once when others read too); shared after exclusive is a shared view; two shared handles share one lease, also with a writer waiting between them; token: of an own lease; permits only this instance could free; releasing the views in either order
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_419:';
raw_redis_del_prefix($p);
$locks = new DistLock($uri, ['prefix' => $p]);
$other = new DistLock($uri, ['prefix' => $p]);
// Each call below waited for its own wait (3 s) before issue 37.1; "at once" is
// well under it, on a loaded machine, under valgrind and emulation too.
$bound = 0.5 * lc_slow();

function timed(callable $fn): array
{
    $t = hrtime(true);
    try {
        $r = $fn();
    } catch (Throwable $e) {
        $r = $e;
    }
    return [$r, (hrtime(true) - $t) / 1e9];
}
function at_once(string $what, float $el): void
{
    global $bound;
    echo $what, $el <= $bound ? ': at once' : sprintf(': %.3f s (bound %.3f s)', $el, $bound), "\n";
}
function st(DistLock $d, string $name): string
{
    $s = $d->status($name);
    return sprintf('%s/%d', $s['kind'] ?? 'free', $s['holders']);
}

// 1. The README sample: shared, then exclusive on the same instance: the upgrade
$r = $locks->lockShared('catalogue', 30, 3);
[$w, $el] = timed(fn() => $locks->lockExclusive('catalogue', 60, 3));
at_once('upgrade', $el);
var_dump($w instanceof DistLock\Lock, $w->token() === $r->token(), st($locks, 'catalogue'));
var_dump($r->remainingLifetime() > 50);   // the longer ttl applies, for every handle
// releasing the exclusive handle while the shared one is held: shared again
var_dump($w->release(), st($locks, 'catalogue'), $r->isAcquired());
var_dump($other->tryLockShared('catalogue', 5) !== null);   // another reader gets in now (and leaves)
var_dump($r->release(), st($locks, 'catalogue'));

// 2. Upgrade, then the shared handle released first: the lease stays exclusive
$r = $locks->lockShared('catalogue', 30, 3);
[$w, $el] = timed(fn() => $locks->tryLockExclusive('catalogue', 30));
at_once('tryLockExclusive upgrade', $el);
var_dump($r->release(), st($locks, 'catalogue'), $w->isAcquired());
var_dump($other->tryLockShared('catalogue', 5));            // null: exclusive
var_dump($w->release(), st($locks, 'catalogue'));

// 3. Others read too: no wait, a LogicException that says so; the shared lease is kept
$r = $locks->lockShared('catalogue', 30, 3);
$o = $other->lockShared('catalogue', 30, 3);
foreach (['lockExclusive' => fn() => $locks->lockExclusive('catalogue', 30, 3),
          'tryLockExclusive' => fn() => $locks->tryLockExclusive('catalogue', 30)] as $what => $fn) {
    [$e, $el] = timed($fn);
    at_once($what . ' with other readers', $el);
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
var_dump($r->isAcquired(), st($locks, 'catalogue'));
$o->release();
$w = $locks->lockExclusive('catalogue', 30, 3);              // the only reader now: upgraded
var_dump(st($locks, 'catalogue'));
unset($w, $r, $o, $e);
var_dump(st($locks, 'catalogue'));

// 4. Exclusive, then shared: a shared view of the exclusive lease
$w = $locks->lockExclusive('book', 30, 3);
[$s, $el] = timed(fn() => $locks->lockShared('book', 10, 3));
at_once('shared after exclusive', $el);
var_dump($s->token() === $w->token(), st($locks, 'book'), $s->remainingLifetime() > 20);
var_dump($w->release(), st($locks, 'book'), $s->isAcquired());   // demoted: shared
var_dump($s->release(), st($locks, 'book'));
$w = $locks->lockExclusive('book', 30, 3);
$s = $locks->tryLockShared('book', 30);
var_dump($s->release(), st($locks, 'book'), $w->release(), st($locks, 'book'));

// 5. Two shared handles of one instance, a writer of another process waiting between them
$r = $locks->lockShared('shelf', 30, 3);
$child = fork_child(function () use ($uri, $p) {
    $d = new DistLock($uri, ['prefix' => $p]);
    $w = $d->lockExclusive('shelf', 10, 20);
    return $w->release() ? 0 : 1;
});
$waiting = lc_wait_until(fn() => $locks->status('shelf')['waiters'] >= 1, 10 * lc_slow());
var_dump($waiting !== null);
[$r2, $el] = timed(fn() => $locks->lockShared('shelf', 30, 3));
at_once('second shared handle, a writer waiting', $el);
var_dump($r2->token() === $r->token(), st($locks, 'shelf'));
[$r3, $el] = timed(fn() => $locks->tryLockShared('shelf', 30));
at_once('tryLockShared, a writer waiting', $el);
var_dump($r3 !== null && $r3->token() === $r->token());
var_dump($r->release(), $r2->release(), $r3->release());      // the last one ends the lease: the writer gets it
echo wait_child($child), "\n";

// 6. token: of an own lease is the same owner; another token is another owner (it contends)
$r = $locks->lockShared('t', 30, 3, token: 'own-token');
[$r2, $el] = timed(fn() => $locks->lockShared('t', 30, 3, token: 'own-token'));
at_once('shared, token of the own shared lease', $el);
[$w, $el] = timed(fn() => $locks->lockExclusive('t', 30, 3, token: 'own-token'));
at_once('exclusive, token of the own shared lease (upgrade)', $el);
[$w2, $el] = timed(fn() => $locks->lockExclusive('t', 30, 3, token: 'own-token'));
at_once('exclusive, token of the own exclusive lease', $el);
var_dump($w2->token(), st($locks, 't'), $locks->tryLockExclusive('t', 30, token: 'another-owner'));
unset($r, $r2, $w, $w2);
var_dump(st($locks, 't'));
// two own shared leases under two tokens: an upgrade of one would wait for the other
$a = $locks->lockShared('t', 30, 3, token: 'a');
$b = $locks->lockShared('t', 30, 3, token: 'b');
[$e, $el] = timed(fn() => $locks->lockExclusive('t', 30, 3, token: 'a'));
at_once('upgrade with a second own shared lease', $el);
echo get_class($e), ': ', $e->getMessage(), "\n";
unset($a, $b, $e);

// 7. Permits: more than the limit leaves once this instance holds the rest
$p1 = $locks->acquirePermits('pool', 3, 2, 30, 3);
[$e, $el] = timed(fn() => $locks->acquirePermits('pool', 3, 2, 30, 3));
at_once('permits only this instance could free', $el);
echo get_class($e), ': ', $e->getMessage(), "\n";
[$e, $el] = timed(fn() => $locks->tryAcquirePermits('pool', 3, 2, 30));
echo get_class($e), "\n";
$p2 = $locks->acquirePermits('pool', 3, 1, 30, 3);          // the third permit: granted
var_dump($locks->permits('pool'));
$p1->release();
$p2->release();
$t1 = $locks->acquirePermits('pool', 3, 1, 30, 3, token: 'tk');
[$e, $el] = timed(fn() => $locks->acquirePermits('pool', 3, 2, 30, 3, token: 'tk'));
echo get_class($e), ': ', $e->getMessage(), "\n";
$t2 = $locks->restorePermits('pool', 'tk');                   // another handle on the same permits
var_dump($locks->permits('pool'), $t1->release(), $locks->permits('pool'), $t2->release(), $locks->permits('pool'));

// 8. Another instance still waits as it always did
$w = $locks->lockExclusive('catalogue', 30, 3);
[$e, $el] = timed(fn() => $other->lockShared('catalogue', 30, 0.2));
echo get_class($e), "\n";
var_dump(raw_redis_del_prefix($p) >= 0);
echo "done\n";
?>
--EXPECTF--
upgrade: at once
bool(true)
bool(true)
string(11) "exclusive/1"
bool(true)
bool(true)
string(8) "shared/1"
bool(true)
bool(true)
bool(true)
string(6) "free/0"
tryLockExclusive upgrade: at once
bool(true)
string(11) "exclusive/1"
bool(true)
NULL
bool(true)
string(6) "free/0"
lockExclusive with other readers: at once
LogicException: DistLock::lockExclusive(): this instance holds "catalogue" shared and other holders do too; an exclusive lease would wait for a shared lease only this instance can release: release its shared handles first, then wait for the exclusive lease
tryLockExclusive with other readers: at once
LogicException: DistLock::tryLockExclusive(): this instance holds "catalogue" shared and other holders do too; an exclusive lease would wait for a shared lease only this instance can release: release its shared handles first, then wait for the exclusive lease
bool(true)
string(8) "shared/2"
string(11) "exclusive/1"
string(6) "free/0"
shared after exclusive: at once
bool(true)
string(11) "exclusive/1"
bool(true)
bool(true)
string(8) "shared/1"
bool(true)
bool(true)
string(6) "free/0"
bool(true)
string(11) "exclusive/1"
bool(true)
string(6) "free/0"
bool(true)
second shared handle, a writer waiting: at once
bool(true)
string(8) "shared/1"
tryLockShared, a writer waiting: at once
bool(true)
bool(true)
bool(true)
bool(true)
exit=0
shared, token of the own shared lease: at once
exclusive, token of the own shared lease (upgrade): at once
exclusive, token of the own exclusive lease: at once
string(9) "own-token"
string(11) "exclusive/1"
NULL
string(6) "free/0"
upgrade with a second own shared lease: at once
LogicException: DistLock::lockExclusive(): this instance holds "t" shared under 2 leases (tokens); an exclusive lease would wait for shared leases only this instance can release: release all but one first
permits only this instance could free: at once
LogicException: DistLock::acquirePermits(): this instance holds 2 of the 3 permits of "pool"; 2 more could only be granted once it releases its own (it would wait for itself)
LogicException
array(2) {
  ["holders"]=>
  int(2)
  ["used"]=>
  int(3)
}
LogicException: DistLock::acquirePermits(): this instance already holds permits of "pool" under this token; take more under another token, or restorePermits() for another handle
array(2) {
  ["holders"]=>
  int(1)
  ["used"]=>
  int(1)
}
bool(true)
array(2) {
  ["holders"]=>
  int(1)
  ["used"]=>
  int(1)
}
bool(true)
array(2) {
  ["holders"]=>
  int(0)
  ["used"]=>
  int(0)
}
DistLock\LockTimeoutException
bool(true)
done

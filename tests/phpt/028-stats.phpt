--TEST--
stats(): the eight counters are ints and move with acquire, contention, timeout, release, loss, refresh, wait, connection errors
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
// releases confirmed at once, so that each line's counters move on that line (deferred ones: 041)
$d = new DistLock(test_uri(), ['prefix' => 'phpt_028:', 'defer_release' => false]);
$o = new DistLock(test_uri(), ['prefix' => 'phpt_028:', 'defer_release' => false]);
$s = $d->stats();
// the eight documented counters are there (later work may add more after them)
$keys = ['acquired', 'contended', 'timeouts', 'released', 'lost', 'refreshed', 'wait_time_us', 'connection_errors'];
var_dump(array_slice(array_keys($s), 0, 8) === $keys);
foreach ($s as $k => $v) if (!is_int($v) || $v < 0) echo "$k is not a non-negative int\n";
function delta(array $a, array $b): string {
    $out = [];
    foreach ($b as $k => $v) {
        if ($k === 'native_releases') {
            continue;   // server-dependent (Valkey >= 9.0): phpt 044
        }
        if ($k === 'wait_time_us') {
            // one round trip is not "waiting": only report real waits (>= 50 ms)
            if ($v - $a[$k] >= 50000) $out[] = "$k>=50ms";
            elseif ($v < $a[$k]) $out[] = "$k went down";
        } elseif ($v !== $a[$k]) {
            $out[] = "$k+" . ($v - $a[$k]);
        }
    }
    return implode(' ', $out) ?: '(none)';
}
$step = function (string $label, callable $f) use ($d) {
    $a = $d->stats();
    try { $f(); } catch (DistLock\Exception $e) { $label .= ' [' . (new ReflectionClass($e))->getShortName() . ']'; }
    echo str_pad($label, 34), delta($a, $d->stats()), "\n";
};
$step('stats() itself', fn() => $d->stats());
$step('lock', function () use ($d, &$l) { $l = $d->lock('a', 5); });
$step('reentrant lock', function () use ($d, &$l2) { $l2 = $d->lock('a', 5); });
$step('refresh', fn() => $l->refresh());
$step('isAcquired + remainingLifetime', fn() => [$l->isAcquired(), $l->remainingLifetime()]);
$step('release inner handle', fn() => $l2->release());
$step('release last handle', fn() => $l->release());
$step('release again', fn() => $l->release());
$step('tryLock free', function () use ($d, &$l) { $l = $d->tryLock('b', 5); });
$h = $o->lock('held', 5);
$step('tryLock held by other', fn() => $d->tryLock('held'));
$step('lock held, wait 0.1', fn() => $d->lock('held', 1, 0.1));
$step('isLocked / forceRelease', fn() => [$d->isLocked('b'), $d->forceRelease('nothing')]);
$step('release lost (deleted by others)', function () use ($l) { raw_redis('DEL', 'phpt_028:b'); $l->release(); });
$step('refresh after that (known lost)', fn() => $l->refresh());
$step('refresh lost (deleted by others)', function () use ($d) { $x = $d->lock('f', 5); raw_redis('DEL', 'phpt_028:f'); $x->refresh(); });
$step('synchronized', fn() => $d->synchronized('c', fn() => 1));
$step('helpers lock+unlock', function () use ($d) { $x = $d->lockAccount(1, 5); $d->unlockAccount(1, $x->token()); });
$step('lock lost by expiry, release', function () use ($d) { $x = $d->lock('e', 0.05); usleep(100000); $x->release(); });
$h->release();

// connection errors are counted per failure
$bad = new DistLock('redis://127.0.0.1:' . free_port());
$a = $d->stats();
try { $bad->isLocked('x'); } catch (DistLock\ConnectionException $e) {}
try { $bad->tryLock('x'); } catch (DistLock\ConnectionException $e) {}
echo str_pad('two connection failures', 34), delta($a, $d->stats()), "\n";
// counters are per process: another instance reports the same numbers
var_dump($o->stats() === $d->stats(), $bad->stats() === $d->stats());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_028:');
?>
--EXPECTF--
bool(true)
stats() itself                    (none)
lock                              acquired+1
reentrant lock                    acquired+1
refresh                           refreshed+1
isAcquired + remainingLifetime    (none)
release inner handle              (none)
release last handle               released+1
release again                     (none)
tryLock free                      acquired+1
tryLock held by other             contended+1
lock held, wait 0.1 [LockTimeoutException]contended+%d timeouts+1 wait_time_us>=50ms
isLocked / forceRelease           (none)
release lost (deleted by others)  lost+1
refresh after that (known lost)   (none)
refresh lost (deleted by others)  acquired+1 lost+1
synchronized                      acquired+1 released+1
helpers lock+unlock               acquired+1 released+1
lock lost by expiry, release      acquired+1 lost+1
two connection failures           connection_errors+2
bool(true)
bool(true)

--TEST--
Lock::refresh(): resets the PTTL to the lease's ttl or to a new ttl; false when lost; bad ttl is ValueError
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
function pttl(): int { return raw_redis('PTTL', 'phpt_016:r'); }
$d = new DistLock(test_uri(), ['prefix' => 'phpt_016:']);
$l = $d->lock('r', 1);
usleep(400000);
$p = pttl();
echo "aged: ", var_export($p <= 600 && $p > 0, true), "\n";
var_dump($l->refresh());
$p = pttl();
echo "reset to its ttl 1 s: ", var_export($p > 700 && $p <= 1000, true), " ($p)\n";
var_dump($l->refresh(5));
$p = pttl();
echo "new ttl 5 s: ", var_export($p > 4700 && $p <= 5000, true), "\n";
var_dump($l->refresh(0.5));
$p = pttl();
echo "shorter ttl 0.5 s: ", var_export($p > 200 && $p <= 500, true), "\n";
var_dump($l->refresh(0.0015));   // rounded up to 2 ms, so the key still has a TTL
$p = pttl();
echo "ttl 0.0015 -> at most 2 ms: ", var_export($p <= 2, true), "\n";
usleep(20000);
var_dump($l->refresh(), $l->isAcquired(), raw_redis('EXISTS', 'phpt_016:r'));   // lost: false, key not recreated

$s0 = $d->stats();
$l = $d->lock('r', 2);
foreach ([0, -1, INF, NAN, 1e9 + 1] as $bad) {
    try { $l->refresh($bad); echo "accepted\n"; } catch (ValueError $e) { echo "ValueError", str_contains($e->getMessage(), '$ttl') ? ' $ttl' : ': ' . $e->getMessage(), "\n"; }
}
try { $l->refresh('x'); } catch (TypeError $e) { echo "TypeError\n"; }
$p = pttl();
echo "bad values left the lease alone: ", var_export($p > 1500 && $p <= 2000, true), "\n";
var_dump($l->refresh(3), $l->refresh(null));
$p = pttl();
echo "refresh(null) uses the lease's ttl (3 s, the last one set): ", var_export($p > 2700 && $p <= 3000, true), " ($p)\n";
$s1 = $d->stats();
echo "refreshed +2: ", $s1['refreshed'] - $s0['refreshed'], "\n";
var_dump($l->release(), $l->refresh(), raw_redis('EXISTS', 'phpt_016:r'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_016:');
?>
--EXPECTF--
aged: true
bool(true)
reset to its ttl 1 s: true (%d)
bool(true)
new ttl 5 s: true
bool(true)
shorter ttl 0.5 s: true
bool(true)
ttl 0.0015 -> at most 2 ms: true
bool(false)
bool(false)
int(0)
ValueError $ttl
ValueError $ttl
ValueError $ttl
ValueError $ttl
ValueError $ttl
TypeError
bad values left the lease alone: true
bool(true)
bool(true)
refresh(null) uses the lease's ttl (3 s, the last one set): true (%d)
refreshed +2: 2
bool(true)
bool(false)
int(0)

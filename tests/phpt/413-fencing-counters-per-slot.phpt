--TEST--
fencing: one counter per hash slot, not per name (the keys left after many fenced names are bounded by the slots they fall in; one under a prefix with a hash tag); tokens still grow per name across owners; a name's counter of earlier releases is moved past and deleted (mutex, fair, readers-writer, multi-lock)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$uri = test_uri();

// Redis Cluster's slot of a key (CRC16/XMODEM of the key, or of its hash tag), redis.io "Redis cluster specification".
function slot_of(string $key): int
{
    $o = strpos($key, '{');
    if ($o !== false && ($c = strpos($key, '}', $o + 1)) !== false && $c > $o + 1) $key = substr($key, $o + 1, $c - $o - 1);
    $crc = 0;
    for ($i = 0, $n = strlen($key); $i < $n; $i++) {
        $crc ^= ord($key[$i]) << 8;
        for ($b = 0; $b < 8; $b++) $crc = ($crc & 0x8000) ? (($crc << 1) ^ 0x1021) & 0xFFFF : ($crc << 1) & 0xFFFF;
    }
    return $crc & 16383;
}
function keys_under(string $prefix): array
{
    $k = raw_redis('KEYS', $prefix . '*');
    sort($k);
    return $k;
}

// 1. 3000 names, fenced, locked and released: the keys left are one counter per slot they fall in.
$p = 'phpt_413:';
raw_redis_del_prefix($p);
$d = new DistLock($uri, ['prefix' => $p, 'fencing' => true]);
$slots = [];
for ($i = 0; $i < 3000; $i++) {
    $l = $d->tryLock("account:$i", 5);
    if (!$l || $l->fencingToken() < 1) { echo "account:$i: not granted with a token\n"; break; }
    $l->release();
    $slots[slot_of("{$p}account:$i")] = true;
}
$left = keys_under($p);
echo count($left) === count($slots) ? "keys left = distinct slots\n" : count($left) . " keys left for " . count($slots) . " slots\n";
$bad = array_filter($left, fn($k) => !preg_match('/^phpt_413:distlock:fence\{[0-9A-Za-z]{3}\}$/', $k) || slot_of($k) === null);
echo $bad ? "unexpected keys: " . implode(' ', array_slice($bad, 0, 3)) . "\n" : "every key is a slot counter\n";
$counted = array_unique(array_map('slot_of', $left));
echo count($counted) === count($left) ? "one counter per slot\n" : "two counters share a slot\n";

// 2. Under a prefix with a hash tag every name is in one slot: one counter for all.
$t = 'phpt{413}:';
raw_redis_del_prefix($t);
$dt = new DistLock($uri, ['prefix' => $t, 'fencing' => true]);
for ($i = 0; $i < 500; $i++) $dt->tryLock("n$i", 5)->release();
var_dump(keys_under($t));

// 3. Tokens grow per name across owners (two instances, names sharing a slot's counter).
$e = new DistLock($uri, ['prefix' => $p, 'fencing' => true]);
$last = [];
$ok = true;
for ($i = 0; $i < 300; $i++) {
    $name = 'k' . ($i % 7);
    $l = (($i % 2) ? $d : $e)->lock($name, 5, 1);
    $f = $l->fencingToken();
    if (isset($last[$name]) && $f <= $last[$name]) { $ok = false; echo "$name: $f after {$last[$name]}\n"; }
    $last[$name] = $f;
    $l->release();
}
var_dump($ok);

// 4. A name's own counter of an earlier release (its key K{K}:fence) is moved past and deleted, by every fenced grant.
function legacy(string $key): string { return $key . '{' . $key . '}:fence'; }
function seed(string $key, int $v): void { raw_redis('SET', legacy($key), (string) $v); }
seed("{$p}old-mutex", 5000000);
$l = $d->lock('old-mutex', 5, 1);
printf("mutex: %s, legacy key %s\n", $l->fencingToken() > 5000000 ? 'past it' : 'BEHIND: ' . $l->fencingToken(), raw_redis('EXISTS', legacy("{$p}old-mutex")) ? 'kept' : 'deleted');
$l->release();
$l = $d->lock('old-mutex', 5, 1);
printf("mutex again: %s\n", $l->fencingToken() > 5000001 ? 'still past it' : 'BEHIND: ' . $l->fencingToken());
$l->release();

$fair = new DistLock($uri, ['prefix' => $p, 'fencing' => true, 'fair' => true]);
seed("{$p}old-fair", 6000000);
$l = $fair->lock('old-fair', 5, 1);
printf("fair: %s, legacy key %s\n", $l->fencingToken() > 6000000 ? 'past it' : 'BEHIND: ' . $l->fencingToken(), raw_redis('EXISTS', legacy("{$p}old-fair")) ? 'kept' : 'deleted');
$l->release();

seed("{$p}old-rw", 7000000);
$l = $d->lockExclusive('old-rw', 5, 1);
printf("exclusive: %s, legacy key %s\n", $l->fencingToken() > 7000000 ? 'past it' : 'BEHIND: ' . $l->fencingToken(), raw_redis('EXISTS', legacy("{$p}old-rw")) ? 'kept' : 'deleted');
$l->release();

seed("{$p}old-m1", 8000000);
seed("{$p}old-m2", 9000000);
[$a, $b] = $d->lockAll(['old-m1', 'old-m2'], 5, 1);
printf("multi: %s %s, legacy keys %d\n", $a->fencingToken() > 8000000 ? 'past it' : 'BEHIND', $b->fencingToken() > 9000000 ? 'past it' : 'BEHIND',
    raw_redis('EXISTS', legacy("{$p}old-m1")) + raw_redis('EXISTS', legacy("{$p}old-m2")));
$d->releaseAll([$a, $b]);
// A name that is a counter's key would hold, delete or reset a whole slot's counter: refused.
foreach (['distlock:fence{abc}', 'distlock:fence'] as $n) {
    try { $d->tryLock($n); echo "$n: accepted\n"; } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
}
try { $d->forceRelease('distlock:fence'); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
echo "done\n";
?>
--CLEAN--
<?php require __DIR__ . '/inc/redis.inc'; raw_redis_del_prefix('phpt_413:'); raw_redis_del_prefix('phpt{413}:'); ?>
--EXPECT--
keys left = distinct slots
every key is a slot counter
one counter per slot
array(1) {
  [0]=>
  string(24) "phpt{413}:distlock:fence"
}
bool(true)
mutex: past it, legacy key deleted
mutex again: still past it
fair: past it, legacy key deleted
exclusive: past it, legacy key deleted
multi: past it past it, legacy keys 0
DistLock::tryLock(): Argument #1 ($name) must not begin with "distlock:fence" (the fencing counters' keys)
DistLock::tryLock(): Argument #1 ($name) must not begin with "distlock:fence" (the fencing counters' keys)
DistLock::forceRelease(): Argument #1 ($name) must not begin with "distlock:fence" (the fencing counters' keys)
done

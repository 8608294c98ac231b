--TEST--
ttl: PTTL right after lock('x', 2.5) is in (2000, 2500]; fractions round up to whole milliseconds
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_022:']);
$l = $d->lock('x', 2.5);
$p = raw_redis('PTTL', 'phpt_022:x');
echo "2.5 s: in (2000, 2500]: ", var_export($p > 2000 && $p <= 2500, true), "\n";
$l->release();

// rounding up: a ttl of 0.0001 s becomes 1 ms (never 0, which Redis rejects, never "no TTL")
$l = $d->lock('tiny', 0.0001);
var_dump($l instanceof DistLock\Lock);
$p = raw_redis('PTTL', 'phpt_022:tiny');
echo "0.0001 s: key gone or PTTL <= 1: ", var_export($p === -2 || ($p >= 0 && $p <= 1), true), "\n";
usleep(5000);
var_dump(raw_redis('EXISTS', 'phpt_022:tiny'));

// 1.0001 s -> 1001 ms (rounded up, not down to 1000); check via the PTTL ceiling after a refresh
foreach ([[1.0001, 1001], [0.9999, 1000], [0.0015, 2], [3, 3000]] as [$ttl, $ms]) {
    $l = $d->lock('r', 30);
    $l->refresh($ttl);
    $p = raw_redis('PTTL', 'phpt_022:r');
    printf("%s s: PTTL <= %d and > %d: %s\n", $ttl, $ms, $ms - 50, var_export($p <= $ms && $p > $ms - 50, true));
    $l->release();
}
// upper bound 1e9 s is accepted and stored as such
$l = $d->lock('huge', 1e9);
$p = raw_redis('PTTL', 'phpt_022:huge');
echo "1e9 s: ", var_export($p > 1e12 - 5000 && $p <= 1e12, true), "\n";
$l->release();
// a lease never exists without a TTL
foreach (['x', 'tiny', 'r', 'huge'] as $k) {
    if (raw_redis('PTTL', "phpt_022:$k") === -1) echo "$k has no TTL!\n";
}
echo "done\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_022:');
?>
--EXPECT--
2.5 s: in (2000, 2500]: true
bool(true)
0.0001 s: key gone or PTTL <= 1: true
int(0)
1.0001 s: PTTL <= 1001 and > 951: true
0.9999 s: PTTL <= 1000 and > 950: true
0.0015 s: PTTL <= 2 and > -48: true
3 s: PTTL <= 3000 and > 2950: true
1e9 s: true
done

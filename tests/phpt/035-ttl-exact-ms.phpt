--TEST--
ttl: a ttl that is a whole number of milliseconds is not rounded up to the next one (no floating-point creep)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_035:']);
// a ttl that is a whole number of milliseconds is not rounded up any further
// (floating point: 2.007 * 1e6 is 2007000.0000000002)
foreach ([2.007, 2.011, 0.029, 1.001] as $ttl) {
    $l = $d->lock('ms', $ttl);
    $p = raw_redis('PTTL', 'phpt_035:ms');
    $ms = (int)round($ttl * 1000);
    printf("%s s: PTTL <= %d: %s\n", $ttl, $ms, var_export($p <= $ms, true) . ($p > $ms ? " (PTTL $p)" : ''));
    $l->release();
}
// the same through refresh() and through the options' default ttl
$l = $d->lock('ms', 30);
$l->refresh(2.007);
$p = raw_redis('PTTL', 'phpt_035:ms');
echo "refresh(2.007): PTTL <= 2007: ", var_export($p <= 2007, true), "\n";
$l->release();
$o = new DistLock(test_uri(), ['prefix' => 'phpt_035:', 'ttl' => 2.011]);
$l = $o->lock('ms');
$p = raw_redis('PTTL', 'phpt_035:ms');
echo "option ttl 2.011: PTTL <= 2011: ", var_export($p <= 2011, true), "\n";
$l->release();
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_035:');
?>
--EXPECT--
2.007 s: PTTL <= 2007: true
2.011 s: PTTL <= 2011: true
0.029 s: PTTL <= 29: true
1.001 s: PTTL <= 1001: true
refresh(2.007): PTTL <= 2007: true
option ttl 2.011: PTTL <= 2011: true

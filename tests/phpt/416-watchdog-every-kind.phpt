--TEST--
watchdog: an exclusive (readers-writer) lease, two shared leases, a semaphore's permits (its one-holder form and its set) and a fair mutex lease of 0.6 s each survive 2.5 s of usleep(), each renewed by its own kind's refresh; nothing is reported lost; all release
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$p = 'phpt_416:';
raw_redis_del_prefix($p);
$wd = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true]);
$wd2 = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true]);
$fair = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true, 'fair' => true, 'fencing' => true]);
$s0 = $wd->stats()['lost'] + $wd2->stats()['lost'];
$held = [
    'exclusive' => $wd->lockExclusive('doc', 0.6),
    'shared 1' => $wd->lockShared('cat', 0.6),
    'shared 2' => $wd2->lockShared('cat', 0.6),
    'permit (one holder)' => $wd->acquirePermits('solo', 3, 1, 0.6),
    'permits 2 of 4' => $wd->acquirePermits('pool', 4, 2, 0.6),
    'permit 1 of 4' => $wd2->acquirePermits('pool', 4, 1, 0.6),
    'fair mutex' => $fair->lock('f', 0.6),
];
usleep(2500000);   // PHP is blocked in C: only the watchdog threads renew
foreach ($held as $what => $l) {
    printf("%s: %s, %s\n", $what, $l->isAcquired() ? 'held' : 'LOST', $l->remainingLifetime() > 0 ? 'time left' : 'no time left');
}
$check = new DistLock(test_uri(), ['prefix' => $p]);
echo "doc: ", $check->status('doc')['kind'], "; cat: ", $check->status('cat')['kind'], " ", $check->status('cat')['holders'],
    "; pool: ", $check->permits('pool')['used'], " permits\n";
echo "lost: ", $wd->stats()['lost'] + $wd2->stats()['lost'] - $s0, "\n";
foreach ($held as $what => $l) if (!$l->release()) echo "$what: release false\n";
var_dump(array_values(array_filter(raw_redis('KEYS', $p . '*'), fn ($k) => !str_starts_with($k, $p . 'distlock:fence'))));
?>
--CLEAN--
<?php require __DIR__ . '/inc/redis.inc'; raw_redis_del_prefix('phpt_416:'); ?>
--EXPECT--
exclusive: held, time left
shared 1: held, time left
shared 2: held, time left
permit (one holder): held, time left
permits 2 of 4: held, time left
permit 1 of 4: held, time left
fair mutex: held, time left
doc: exclusive; cat: shared 2; pool: 3 permits
lost: 0
array(0) {
}

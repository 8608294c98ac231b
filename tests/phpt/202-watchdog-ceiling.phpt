--TEST--
watchdog ceiling: with max_hold 1.0 and ttl 0.5 renewals stop and the key expires by about 1.5 s; release() is false then
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_202:';
raw_redis_del_prefix($prefix);
$key = $prefix . 'capped';
$slow = lc_slow();

$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'max_hold' => 1.0]);
$s0 = $dl->stats();
$t0 = lc_now();
$l = $dl->lock('capped', 0.5);
$t1 = lc_now();                 // the grant happened before this: its own expiry is at most t1 + 0.5
$token = $l->token();

// Watch the key: the last moment (taken before the read) it still held our
// token, the first moment (taken after the read) it was gone.
$lastHeld = null;
$goneAt = null;
$maxPttl = 0;
while (lc_now() - $t0 < 1.0 + 0.5 + 1.5 * $slow) {
    $before = lc_now();
    [$holds, $pttl] = lc_key_state($key, $token);
    $after = lc_now();
    if ($holds) {
        $lastHeld = $before - $t1;
        $maxPttl = max($maxPttl, $pttl);
    } elseif ($goneAt === null) {
        $goneAt = $after - $t0;
        break;
    }
    usleep(20000);
}
// renewed well past its first expiry (0.5 s), up to near the ceiling: the watchdog worked until then
echo "held past 1.0 s: ", var_export($lastHeld !== null && $lastHeld > 1.0, true), "\n";
echo "gone: ", var_export($goneAt !== null, true), "\n";
// the last renewal is before 1.0 s, so the key is gone by 1.0 + 0.5 (+ margin)
echo "gone by 1.5 s + margin: ", var_export($goneAt !== null && $goneAt <= 1.5 + 1.0 * $slow, true), "\n";
echo "never renewed beyond ttl: ", var_export($maxPttl <= 500, true), "\n";

// no renewal after the ceiling, and nothing recreated the key
$s1 = $dl->stats();
usleep(600000);
$s2 = $dl->stats();
echo "renewals before the ceiling > 0: ", var_export($s1['renewals'] - $s0['renewals'] > 0, true), "\n";
echo "round trips after: ", $s2['renewal_round_trips'] - $s1['renewal_round_trips'], "\n";
echo "exists: ", raw_redis('EXISTS', $key), "\n";

var_dump($l->isAcquired(), $l->remainingLifetime(), $l->refresh(), $l->release());
// the name is free for others now
$other = new DistLock(test_uri(), ['prefix' => $prefix]);
$o = $other->tryLock('capped', 5);
var_dump($o !== null && $o->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_202:');
?>
--EXPECT--
held past 1.0 s: true
gone: true
gone by 1.5 s + margin: true
never renewed beyond ttl: true
renewals before the ceiling > 0: true
round trips after: 0
exists: 0
bool(false)
float(0)
bool(false)
bool(false)
bool(true)

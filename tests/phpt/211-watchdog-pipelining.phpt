--TEST--
watchdog: the leases of one server due together are renewed in one pipelined round trip (stats renewals vs renewal_round_trips); each stays ours
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
$prefix = 'phpt_211:';
raw_redis_del_prefix($prefix);

// two instances on the same server: the watchdog serves every lease of the process
$a = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$b = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$s0 = $a->stats();
$locks = [];
for ($i = 0; $i < 8; $i++) {
    $locks[] = ($i % 2 ? $b : $a)->lock("l$i", 0.6);
}
usleep(1500000);
$s1 = $a->stats();
$renewals = $s1['renewals'] - $s0['renewals'];
$trips = $s1['renewal_round_trips'] - $s0['renewal_round_trips'];
echo "round trips >= 3: ", var_export($trips >= 3, true), "\n";
// 8 leases per round trip when perfectly batched; at least 4 on average on a noisy machine
echo "renewals per round trip >= 4: ", var_export($trips > 0 && $renewals >= 4 * $trips, true), "\n";
echo "stats are the same from any instance: ", var_export($b->stats()['renewals'] >= $s1['renewals'], true), "\n";

$held = 0;
foreach ($locks as $i => $l) {
    [$holds, $pttl] = lc_key_state($prefix . "l$i", $l->token());
    $held += (int)($holds && $pttl > 0 && $pttl <= 600);
}
echo "held: $held/8\n";
$released = 0;
foreach ($locks as $l) {
    $released += (int)$l->release();
}
echo "released: $released/8\n";
$s2 = $a->stats();
usleep(500000);
echo "round trips after: ", $a->stats()['renewal_round_trips'] - $s2['renewal_round_trips'], "\n";
var_dump(count(raw_redis('KEYS', $prefix . '*')));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_211:');
?>
--EXPECT--
round trips >= 3: true
renewals per round trip >= 4: true
stats are the same from any instance: true
held: 8/8
released: 8/8
round trips after: 0
int(0)

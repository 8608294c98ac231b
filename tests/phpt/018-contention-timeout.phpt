--TEST--
lock() under contention: LockTimeoutException after the wait; wait=0 is one attempt; stats count it
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$holder = new DistLock(test_uri(), ['prefix' => 'phpt_018:']);
$waiter = new DistLock(test_uri(), ['prefix' => 'phpt_018:', 'wait' => 0.3]);
$h = $holder->lock('c', 10);

$s0 = $waiter->stats();
$t = microtime(true);
try {
    $waiter->lock('c');                       // default wait from the options: 0.3 s
    echo "acquired?!\n";
} catch (DistLock\LockTimeoutException $e) {
    $el = microtime(true) - $t;
    echo get_class($e), " after >= 0.3 s: ", var_export($el >= 0.3, true), ", < 2 s: ", var_export($el < 2, true), "\n";
    echo "is a DistLock\\Exception: ", var_export($e instanceof DistLock\Exception, true), "\n";
    echo "message names the lock: ", var_export(str_contains($e->getMessage(), 'c'), true), "\n";
}
$s1 = $waiter->stats();
echo "timeouts +1: ", $s1['timeouts'] - $s0['timeouts'], "\n";
echo "contended >= 1 (it tried, then blocked): ", var_export($s1['contended'] - $s0['contended'] >= 1, true), "\n";
echo "wait_time_us grew by >= 250000: ", var_export($s1['wait_time_us'] - $s0['wait_time_us'] >= 250000, true), "\n";
echo "acquired unchanged: ", var_export($s1['acquired'] === $s0['acquired'], true), "\n";

// explicit wait argument beats the default
$t = microtime(true);
try { $waiter->lock('c', null, 0.1); } catch (DistLock\LockTimeoutException $e) {
    $el = microtime(true) - $t;
    echo "wait 0.1: >= 0.1 s: ", var_export($el >= 0.1, true), ", < 0.3 s: ", var_export($el < 0.3, true), "\n";
}
// wait 0: a single attempt
$t = microtime(true);
$c0 = $waiter->stats()['contended'];
try { $waiter->lock('c', 1, 0); } catch (DistLock\LockTimeoutException $e) {
    echo "wait 0: immediate: ", var_export(microtime(true) - $t < 0.1, true), ", attempts: ", $waiter->stats()['contended'] - $c0, "\n";
}
// the holder was never disturbed
var_dump(raw_redis('GET', 'phpt_018:c') === $h->token(), raw_redis('PTTL', 'phpt_018:c') > 9000);
var_dump($h->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_018:');
?>
--EXPECT--
DistLock\LockTimeoutException after >= 0.3 s: true, < 2 s: true
is a DistLock\Exception: true
message names the lock: true
timeouts +1: 1
contended >= 1 (it tried, then blocked): true
wait_time_us grew by >= 250000: true
acquired unchanged: true
wait 0.1: >= 0.1 s: true, < 0.3 s: true
wait 0: immediate: true, attempts: 1
bool(true)
bool(true)
bool(true)

--TEST--
watchdog: a SIGKILLed holder renews nothing: its lease (ttl 1 s, kept alive by its watchdog until then) expires within its TTL
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork') || !function_exists('posix_kill')) die('skip pcntl/posix not available');
?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_203:';
raw_redis_del_prefix($prefix);
$key = $prefix . 'victim';
$slow = lc_slow();

// the parent has a watchdog lease of its own too (its thread exists before the fork)
$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$mine = $dl->lock('parent', 1);

$pid = pcntl_fork();
if ($pid < 0) {
    die("fork failed\n");
}
if ($pid === 0) {
    ini_set('display_errors', '0');
    try {
        $cdl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
        $l = $cdl->lock('victim', 1);
        raw_redis('SET', $prefix . 'token', $l->token());
    } catch (Throwable $t) {
        raw_redis('SET', $prefix . 'token', 'ERR ' . get_class($t) . ': ' . $t->getMessage());
    }
    while (true) {
        sleep(10);     // blocked in C: only the child's watchdog thread works
    }
}

$token = null;
lc_wait_until(function () use ($prefix, &$token) {
    $token = raw_redis('GET', $prefix . 'token');
    return $token !== null;
}, 10 * $slow);
echo "child token: ", var_export(is_string($token) && strlen($token) === 32, true), "\n";
if (is_string($token) && str_starts_with($token, 'ERR')) echo $token, "\n";
$tGranted = lc_now();

// alive through 1.8 s (beyond its 1 s ttl): the child's own watchdog renews it
$alive = true;
while (lc_now() - $tGranted < 1.8) {
    [$holds, $pttl] = lc_key_state($key, $token);
    $alive = $alive && $holds && $pttl > 0 && $pttl <= 1000;
    usleep(50000);
}
echo "renewed by the child while alive: ", var_export($alive, true), "\n";

posix_kill($pid, SIGKILL);
echo wait_child($pid), "\n";

// nobody renews it: it expires by its ttl (1 s) after the child's last renewal
$took = lc_wait_until(fn () => raw_redis('EXISTS', $key) === 0, 1.0 + 2.0 * $slow);
echo "expired: ", var_export($took !== null, true), "\n";
echo "within ttl + margin: ", var_export($took !== null && $took <= 1.0 + 1.5 * $slow, true), "\n";
// an expired key, not a deleted one: nobody else took it
var_dump(raw_redis('EXISTS', $key));
$o = (new DistLock(test_uri(), ['prefix' => $prefix]))->tryLock('victim', 5);
var_dump($o !== null && $o->release());

// the parent's own lease was kept all along by the parent's watchdog
var_dump($mine->isAcquired(), $mine->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_203:');
?>
--EXPECT--
child token: true
renewed by the child while alive: true
signal=9
expired: true
within ttl + margin: true
int(0)
bool(true)
bool(true)
bool(true)

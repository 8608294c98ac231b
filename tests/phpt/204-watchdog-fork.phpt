--TEST--
watchdog and fork(): the child's own watchdog thread keeps its lease through sleep(2); the parent's lease stays intact all the while
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_204:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();

$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$parent = $dl->lock('parent', 0.6);
$ptoken = $parent->token();
usleep(300000);                       // the parent's thread has renewed at least once
$t0 = lc_now();

$pid = pcntl_fork();
if ($pid < 0) {
    die("fork failed\n");
}
if ($pid === 0) {
    ini_set('display_errors', '0');
    $r = [];
    try {
        // the inherited instance: its schedule was the parent's; the child starts its own thread
        $s0 = $dl->stats();
        $l = $dl->lock('child', 0.6, 1);
        sleep(2);
        [$holds, $pttl] = lc_key_state($prefix . 'child', $l->token());
        $r[] = 'holds=' . (int)$holds;
        $r[] = 'pttl_ok=' . (int)($pttl > 0 && $pttl <= 600);
        $r[] = 'renewed=' . (int)($dl->stats()['renewals'] - $s0['renewals'] >= 3);
        // the parent's handle is inert here
        $r[] = 'parent_release=' . var_export($parent->release(), true);
        $r[] = 'release=' . var_export($l->release(), true);
        $r[] = 'left=' . raw_redis('EXISTS', $prefix . 'child');
    } catch (Throwable $t) {
        $r[] = get_class($t) . ': ' . $t->getMessage();
    }
    raw_redis('SET', $prefix . 'result', implode(' ', $r));
    exit(0);                          // request end in the child: must not touch the parent's lease
}

// the parent: its lease must hold the same token, with a TTL, all the while
$intact = true;
$samples = 0;
while (lc_now() - $t0 < 2.5) {
    [$holds, $pttl] = lc_key_state($prefix . 'parent', $ptoken);
    $intact = $intact && $holds && $pttl > 0;
    $samples++;
    usleep(50000);
}
echo wait_child($pid), "\n";
echo raw_redis('GET', $prefix . 'result'), "\n";
echo "parent intact while the child ran: ", var_export($intact && $samples > 5, true), "\n";

// and after the child exited: still renewed by the parent's thread
usleep(800000);
[$holds, $pttl] = lc_key_state($prefix . 'parent', $ptoken);
echo "after the child: holds=", var_export($holds, true), " pttl>0=", var_export($pttl > 0, true), "\n";
var_dump($parent->isAcquired(), $parent->token() === $ptoken, $parent->release(), raw_redis('EXISTS', $prefix . 'parent'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_204:');
?>
--EXPECT--
exit=0
holds=1 pttl_ok=1 renewed=1 parent_release=false release=true left=0
parent intact while the child ran: true
after the child: holds=true pttl>0=true
bool(true)
bool(true)
bool(true)
int(0)

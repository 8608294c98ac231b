--TEST--
watchdog at request end: leases still held when the script ends, exit()s or dies of a fatal error are released, and the process exits at once (the thread stops); a lost lease of an 'ignore' instance throws nothing next to a 'throw' one
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
$prefix = 'phpt_215:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();

$endings = [
    'end' => '',
    'exit' => 'exit(3);',
    'fatal' => 'distlock_phpt_no_such_function();',
    'uncaught' => 'throw new RuntimeException("dies");',
];
foreach ($endings as $how => $end) {
    $code = '<?php
require ' . var_export(__DIR__ . '/inc/lifecycle.inc', true) . ';
ini_set("display_errors", "0");
$dl = new DistLock(test_uri(), ["prefix" => ' . var_export($prefix, true) . ', "watchdog" => true, "on_lost" => "throw", "fencing" => true]);
$a = $dl->lock("' . $how . ':a", 0.6);
$b = $dl->lock("' . $how . ':b", 30);
$GLOBALS["c"] = $dl->lock("' . $how . ':c", 0.6);
usleep(400000);                                     // the watchdog thread is running
echo "holding\n";
' . $end . "\n";
    $t0 = lc_now();
    [$rc, $out] = run_php_child($code, 30);
    $took = lc_now() - $t0;
    $left = 0;
    foreach (['a', 'b', 'c'] as $n) {
        $left += raw_redis('EXISTS', $prefix . "$how:$n");
    }
    printf("%-8s rc=%d out=%s left=%d quick=%s\n", $how, $rc, trim($out), $left, var_export($took < 5 * $slow, true));
}

// two instances: the lost lease of the 'ignore' one throws nothing; the 'throw' one's lease is kept
$ignore = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$throw = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'on_lost' => 'throw']);
$li = $ignore->lock('ignored', 0.6);
$lt = $throw->lock('thrown', 0.6);
$s0 = $ignore->stats();
try {
    raw_redis('SET', $prefix . 'ignored', 'someone-else', 'PX', 10000);
    lc_busy(0.2);
    $r = lc_wait_until(fn () => $ignore->stats()['lost'] > $s0['lost'], 2 * $slow);
    lc_busy(0.3);
    echo "ignore: no exception, lost seen: ", var_export($r !== null, true), "\n";
} catch (Throwable $t) {
    echo "ignore: ", get_class($t), ': ', $t->getMessage(), "\n";
}
var_dump($li->isAcquired(), $lt->isAcquired(), $lt->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_215:');
?>
--EXPECT--
end      rc=0 out=holding left=0 quick=true
exit     rc=3 out=holding left=0 quick=true
fatal    rc=255 out=holding left=0 quick=true
uncaught rc=255 out=holding left=0 quick=true
ignore: no exception, lost seen: true
bool(false)
bool(true)
bool(true)
